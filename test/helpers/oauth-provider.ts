// A real OAuth 2 / OpenID Connect authorization server for the connection tests: `oidc-provider`
// (the certified Node implementation), on loopback. Its login and consent screens are replaced by a
// scripted person (approve as an account, or deny), the one part a browser would supply. Everything
// else (PKCE, codes, refresh rotation, revocation, introspection) is the library's own.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider';
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

export interface OAuthServer {
  issuer: string;
  authUrl: string;
  tokenUrl: string;
  introspectionUrl: string;
  /** What the scripted person does at the next consent screen. */
  person: { decision: 'approve' | 'deny'; account: string };
  /** Accounts whose access tokens live 4 seconds (every other account's live an hour). */
  shortLived: Set<string>;
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

export async function startOAuthServer(): Promise<OAuthServer> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const store = new MemoryStore();
  const issued = { access: new Set<string>(), refresh: new Set<string>() };
  const resource = { client_id: 'mcp-resource', client_secret: randomBytes(16).toString('hex') };
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
    resource,
    registerClient(redirectUri) {
      const client = { client_id: `platform-${randomBytes(4).toString('hex')}`, client_secret: randomBytes(24).toString('hex') };
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

  const provider = new Provider(issuer, {
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
    scopes: ['openid', 'offline_access', 'notes:read'],
    jwks: { keys: [generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as never] },
    features: {
      devInteractions: { enabled: false },
      // A client revokes its own tokens; the resource server introspects anyone's.
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      introspection: { enabled: true, allowedPolicy: async (_ctx, client) => client.clientId === resource.client_id },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    pkce: { required: () => true },
    ttl: {
      AccessToken: (_ctx, token) => (server.shortLived.has(String(token.accountId)) ? 4 : 3600),
      IdToken: 3600,
      AuthorizationCode: 60,
      RefreshToken: 86_400,
      Grant: 86_400,
      Interaction: 600,
      Session: 86_400,
    },
    cookies: { keys: [randomBytes(16).toString('hex')] },
  });
  const handle = provider.callback();

  // The scripted person: signs in as `person.account` and grants what the client asked for, or denies.
  const http: Server = createServer(async (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return handle(req, res);
    try {
      const details = await provider.interactionDetails(req, res);
      if (server.person.decision === 'deny') {
        return await provider.interactionFinished(
          req,
          res,
          { error: 'access_denied', error_description: 'The person declined to connect.' },
          { mergeWithLastSubmission: false },
        );
      }
      if (details.prompt.name === 'login') {
        return await provider.interactionFinished(
          req,
          res,
          { login: { accountId: server.person.account } },
          { mergeWithLastSubmission: false },
        );
      }
      const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
      grant.addOIDCScope(String(details.params.scope ?? 'openid'));
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  server.close = () => new Promise((resolve) => http.close(() => resolve()));
  return server;
}

/**
 * A person's browser, reduced to what OAuth needs: follows redirects by hand, keeps cookies per host,
 * and stops at the platform's callback page (returned as it rendered).
 */
export async function followAsBrowser(
  startUrl: string,
  options: { stopAt?: (url: URL) => boolean } = {},
): Promise<{ url: URL; status: number; text: string }> {
  const cookies = new Map<string, Map<string, string>>();
  let url = new URL(startUrl.replace('//localhost:', '//127.0.0.1:'));
  for (let hops = 0; hops < 20; hops++) {
    if (options.stopAt?.(url)) return { url, status: 0, text: '' };
    const jar = cookies.get(url.host) ?? new Map<string, string>();
    const res = await fetch(url, {
      redirect: 'manual',
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
