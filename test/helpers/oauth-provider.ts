// Real OAuth 2 / OpenID Connect authorization servers for the tests: `oidc-provider` (the certified Node
// implementation), on loopback, in two set-ups sharing one scripted person and one in-memory storage:
// - startOAuthServer: the provider an OAuth connection signs in to (refresh rotation, revocation,
//   introspection, short-lived access tokens), for the connection tests;
// - startOidcIdp: an identity provider for external sign-in, issuing id_tokens with email,
//   email_verified and name for scripted accounts (RS256 or ES256 per client, nonce, userinfo).
// Their login and consent screens are replaced by the scripted person (approve as an account, or
// deny), the one part a browser would supply. Everything else (discovery, PKCE, codes, tokens) is the
// library's own.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import Provider, { errors, type Adapter, type AdapterPayload, type Configuration } from 'oidc-provider';
import { freePort } from '../../temporal-dev/engines.js';

type Stored = { payload: AdapterPayload; expiresAt?: number };

/** oidc-provider's storage, in memory, kept inspectable: the tests see every token it issued. */
class MemoryStore {
  readonly models = new Map<string, Map<string, Stored>>();
  of(model: string) {
    let m = this.models.get(model);
    if (!m) this.models.set(model, (m = new Map()));
    return m;
  }
  adapter(model: string): Adapter {
    const items = this.of(model);
    const live = (s: Stored | undefined) => (s && (!s.expiresAt || s.expiresAt > Date.now()) ? s.payload : undefined);
    return {
      upsert: async (id, payload, expiresIn) =>
        void items.set(id, { payload, ...(expiresIn ? { expiresAt: Date.now() + expiresIn * 1000 } : {}) }),
      find: async (id) => live(items.get(id)),
      findByUserCode: async () => undefined,
      findByUid: async (uid) => [...items.values()].map((s) => live(s)).find((p) => p?.uid === uid),
      consume: async (id) => {
        const s = items.get(id);
        if (s) s.payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id) => void items.delete(id),
      revokeByGrantId: async (grantId) => {
        for (const m of this.models.values()) for (const [id, s] of m) if (s.payload.grantId === grantId) m.delete(id);
      },
    };
  }
}

/** What the scripted person does at the provider's next login or consent screen. */
export interface ScriptedPerson {
  decision: 'approve' | 'deny';
  account: string;
}

/**
 * A provider at `issuer` (a free loopback port), its interaction screens played by the person that
 * `person()` returns when a screen opens (tests change it between sign-ins): signs in as its account
 * and grants what the client asked for, or denies with `denial`. Returns its closer.
 */
async function serveProvider(
  port: number,
  issuer: string,
  configuration: Configuration,
  person: () => ScriptedPerson,
  denial: string,
): Promise<() => Promise<void>> {
  const provider = new Provider(issuer, {
    ...configuration,
    features: { ...configuration.features, devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    cookies: { keys: [randomBytes(16).toString('hex')] },
  });
  const handle = provider.callback();
  const http: Server = createServer(async (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return handle(req, res);
    try {
      const details = await provider.interactionDetails(req, res);
      const { decision, account } = person();
      if (decision === 'deny') {
        return await provider.interactionFinished(
          req,
          res,
          { error: 'access_denied', error_description: denial },
          { mergeWithLastSubmission: false },
        );
      }
      if (details.prompt.name === 'login') {
        return await provider.interactionFinished(req, res, { login: { accountId: account } }, { mergeWithLastSubmission: false });
      }
      const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
      grant.addOIDCScope(String(details.params.scope ?? 'openid'));
      // An authorization request naming a resource (RFC 8707): the person grants the scopes for it too.
      if (typeof details.params.resource === 'string') grant.addResourceScope(details.params.resource, String(details.params.scope ?? ''));
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  return () =>
    new Promise((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    });
}

export interface OAuthServer {
  issuer: string;
  authUrl: string;
  tokenUrl: string;
  introspectionUrl: string;
  /** What the scripted person does at the next consent screen. */
  person: ScriptedPerson;
  /** Accounts whose access tokens live 4 seconds (every other account's live an hour). */
  shortLived: Set<string>;
  /** Accounts whose access tokens live this many seconds (before `shortLived`; changeable between issues). */
  lifetimes: Map<string, number>;
  /**
   * Resource servers (RFC 8707 resource indicators) tokens may be asked for, with the scopes each
   * takes: a token requested for one is audience-restricted to it.
   */
  resources: Map<string, string>;
  /** Clients that registered themselves (RFC 7591) or were resolved from a client ID metadata document, by client_id. */
  dynamicClients(): { client_id: string; client_secret?: string; token_endpoint_auth_method?: string; redirect_uris?: string[] }[];
  /** Registers the platform as an OAuth client with this redirect URI. */
  registerClient(redirectUri: string, options?: { pkce?: boolean }): { client_id: string; client_secret: string };
  /** The resource server's own credentials, for introspection. */
  resource: { client_id: string; client_secret: string };
  /** Every access and refresh token value issued so far. */
  issuedTokens(): { access: string[]; refresh: string[] };
  /** Live refresh tokens of an account (revoked or rotated ones are gone). */
  liveRefreshTokens(account: string): string[];
  /** The person revokes the app at the provider: every grant of the account, with its tokens, is destroyed. */
  revokeAccount(account: string): void;
  close(): Promise<void>;
}

export interface OAuthServerOptions {
  /**
   * Accept client ID metadata documents (client_id = an https URL), fetched with this fetch (the
   * tests hand one that trusts their own certificate authority).
   */
  metadataDocuments?: { fetch: typeof fetch };
}

export async function startOAuthServer(options: OAuthServerOptions = {}): Promise<OAuthServer> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const store = new MemoryStore();
  const issued = { access: new Set<string>(), refresh: new Set<string>() };
  const resource = { client_id: 'mcp-resource', client_secret: randomBytes(16).toString('hex') };
  const registeredByHand = new Set<string>();
  store.of('Client').set(resource.client_id, {
    payload: {
      client_id: resource.client_id,
      client_secret: resource.client_secret,
      redirect_uris: [],
      response_types: [],
      grant_types: [],
    },
  });

  const server: OAuthServer = {
    issuer,
    authUrl: `${issuer}/auth`,
    tokenUrl: `${issuer}/token`,
    introspectionUrl: `${issuer}/token/introspection`,
    person: { decision: 'approve', account: 'alice' },
    shortLived: new Set(),
    lifetimes: new Map(),
    resources: new Map(),
    dynamicClients: () =>
      [...store.of('Client').values()]
        .map(
          (c) =>
            c.payload as unknown as {
              client_id: string;
              client_secret?: string;
              token_endpoint_auth_method?: string;
              redirect_uris?: string[];
            },
        )
        .filter((c) => c.client_id !== resource.client_id && !registeredByHand.has(c.client_id)),
    resource,
    registerClient(redirectUri) {
      const client = { client_id: `platform-${randomBytes(4).toString('hex')}`, client_secret: randomBytes(24).toString('hex') };
      registeredByHand.add(client.client_id);
      store.of('Client').set(client.client_id, {
        payload: {
          ...client,
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      });
      return client;
    },
    issuedTokens: () => ({ access: [...issued.access], refresh: [...issued.refresh] }),
    liveRefreshTokens: (account) =>
      [...store.of('RefreshToken').entries()].filter(([, s]) => s.payload.accountId === account && !s.payload.consumed).map(([id]) => id),
    revokeAccount(account) {
      for (const [id, s] of store.of('Grant')) {
        if (s.payload.accountId !== account) continue;
        store.of('Grant').delete(id);
        void store.adapter('Grant').revokeByGrantId!(id);
      }
    },
    close: async () => undefined,
  };

  server.close = await serveProvider(
    port,
    issuer,
    {
      adapter: (name: string) => {
        const base = store.adapter(name);
        if (name !== 'AccessToken' && name !== 'RefreshToken') return base;
        return {
          ...base,
          upsert: async (id: string, payload: AdapterPayload, expiresIn: number) => {
            (name === 'AccessToken' ? issued.access : issued.refresh).add(id);
            return base.upsert(id, payload, expiresIn);
          },
        };
      },
      findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
      scopes: ['openid', 'offline_access', 'notes:read', 'notes:write'],
      jwks: { keys: [generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as never] },
      features: {
        // A client revokes its own tokens; the resource server introspects anyone's.
        revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
        introspection: { enabled: true, allowedPolicy: async (_ctx, client) => client.clientId === resource.client_id },
        // Clients may register themselves (RFC 7591), as MCP clients do.
        registration: { enabled: true },
        resourceIndicators: {
          enabled: true,
          getResourceServerInfo: async (_ctx, indicator) => {
            const scope = server.resources.get(indicator);
            if (scope === undefined) throw new errors.InvalidTarget();
            return { scope, audience: indicator, accessTokenFormat: 'opaque' };
          },
        },
        ...(options.metadataDocuments ? { clientIdMetadataDocument: { enabled: true, ack: 'draft-02' } } : {}),
      },
      ...(options.metadataDocuments ? { fetch: options.metadataDocuments.fetch as never } : {}),
      issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      rotateRefreshToken: true,
      ttl: {
        AccessToken: (_ctx, token) =>
          server.lifetimes.get(String(token.accountId)) ?? (server.shortLived.has(String(token.accountId)) ? 4 : 3600),
        IdToken: 3600,
        AuthorizationCode: 60,
        RefreshToken: 86_400,
        Grant: 86_400,
        Interaction: 600,
        Session: 86_400,
      },
    },
    () => server.person,
    'The person declined to connect.',
  );
  return server;
}

export interface IdpAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface OidcIdp {
  issuer: string;
  /** The accounts people can sign in as, by subject. */
  accounts: Map<string, IdpAccount>;
  /** What the scripted person does at the next login screen. */
  person: ScriptedPerson;
  /** Registers a client with this redirect URI: confidential (client_secret_basic) unless `public`. */
  registerClient(
    redirectUri: string,
    options?: { public?: boolean; alg?: 'RS256' | 'ES256' },
  ): { client_id: string; client_secret?: string };
  close(): Promise<void>;
}

/** `claimsIn: 'userinfo'`: the id_token carries `sub` alone and the e-mail comes from the userinfo endpoint (oidc-provider's default). */
export async function startOidcIdp(options: { claimsIn?: 'id_token' | 'userinfo' } = {}): Promise<OidcIdp> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const store = new MemoryStore();
  const idp: OidcIdp = {
    issuer,
    accounts: new Map(),
    person: { decision: 'approve', account: 'alice' },
    registerClient(redirectUri, { public: isPublic = false, alg = 'RS256' } = {}) {
      const client_id = `platform-${randomBytes(4).toString('hex')}`;
      const client_secret = isPublic ? undefined : randomBytes(24).toString('hex');
      store.of('Client').set(client_id, {
        payload: {
          client_id,
          ...(client_secret ? { client_secret } : {}),
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: isPublic ? 'none' : 'client_secret_basic',
          id_token_signed_response_alg: alg,
        },
      });
      return { client_id, ...(client_secret ? { client_secret } : {}) };
    },
    close: async () => undefined,
  };
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  idp.close = await serveProvider(
    port,
    issuer,
    {
      adapter: (name: string) => store.adapter(name),
      findAccount: async (_ctx, sub) => {
        const account = idp.accounts.get(sub);
        return account ? { accountId: sub, claims: async () => ({ sub, ...account }) } : undefined;
      },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      scopes: ['openid', 'email', 'profile'],
      conformIdTokenClaims: options.claimsIn === 'userinfo',
      jwks: { keys: [rsa as never, ec as never] },
      ttl: { AccessToken: 600, IdToken: 600, AuthorizationCode: 60, Grant: 600, Interaction: 600, Session: 600 },
    },
    () => idp.person,
    'The person declined.',
  );
  return idp;
}

/**
 * A person's browser, reduced to what OAuth needs: follows redirects by hand, keeps cookies per host,
 * and stops at the platform's callback page (returned as it rendered).
 */
export async function followAsBrowser(
  startUrl: string,
  /** `fetch`: one that trusts a test's own certificate authority, for pages on https. */
  options: { stopAt?: (url: URL) => boolean; fetch?: typeof fetch } = {},
): Promise<{ url: URL; status: number; text: string }> {
  const fetch = options.fetch ?? globalThis.fetch;
  const cookies = new Map<string, Map<string, string>>();
  let url = new URL(startUrl.replace('//localhost:', '//127.0.0.1:'));
  for (let hops = 0; hops < 20; hops++) {
    if (options.stopAt?.(url)) return { url, status: 0, text: '' };
    const jar = cookies.get(url.host) ?? new Map<string, string>();
    const res = await fetch(url, {
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
      headers: jar.size ? { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {},
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    cookies.set(url.host, jar);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      url = new URL(location.replace('//localhost:', '//127.0.0.1:'), url);
      continue;
    }
    return { url, status: res.status, text: await res.text() };
  }
  throw new Error('too many redirects');
}
