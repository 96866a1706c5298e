// An OpenID Connect identity provider for the external sign-in tests: `oidc-provider` on loopback,
// issuing id_tokens with email, email_verified and name for scripted accounts. Its login and consent
// screens are replaced by a scripted person (approve as an account, or deny); discovery, PKCE,
// codes, id_token signing (RS256 or ES256 per client), nonce and userinfo are the library's own.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider';
import { freePort } from '../../temporal-dev/engines.js';

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
  person: { decision: 'approve' | 'deny'; account: string };
  /** Registers a client with this redirect URI: confidential (client_secret_basic) unless `public`. */
  registerClient(
    redirectUri: string,
    options?: { public?: boolean; alg?: 'RS256' | 'ES256' },
  ): { client_id: string; client_secret?: string };
  close(): Promise<void>;
}

type Stored = { payload: AdapterPayload; expiresAt?: number };

function memoryAdapter(models: Map<string, Map<string, Stored>>) {
  const of = (model: string) => {
    let m = models.get(model);
    if (!m) models.set(model, (m = new Map()));
    return m;
  };
  const adapter = (model: string): Adapter => {
    const items = of(model);
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
        for (const m of models.values()) for (const [id, s] of m) if (s.payload.grantId === grantId) m.delete(id);
      },
    };
  };
  return { of, adapter };
}

/** `claimsIn: 'userinfo'`: the id_token carries `sub` alone and the e-mail comes from the userinfo endpoint (oidc-provider's default). */
export async function startOidcIdp(options: { claimsIn?: 'id_token' | 'userinfo' } = {}): Promise<OidcIdp> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const storage = memoryAdapter(new Map());
  const idp: OidcIdp = {
    issuer,
    accounts: new Map(),
    person: { decision: 'approve', account: 'alice' },
    registerClient(redirectUri, { public: isPublic = false, alg = 'RS256' } = {}) {
      const client_id = `platform-${randomBytes(4).toString('hex')}`;
      const client_secret = isPublic ? undefined : randomBytes(24).toString('hex');
      storage.of('Client').set(client_id, {
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
  const provider = new Provider(issuer, {
    adapter: storage.adapter,
    findAccount: async (_ctx, sub) => {
      const account = idp.accounts.get(sub);
      return account ? { accountId: sub, claims: async () => ({ sub, ...account }) } : undefined;
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    scopes: ['openid', 'email', 'profile'],
    conformIdTokenClaims: options.claimsIn === 'userinfo',
    jwks: { keys: [rsa as never, ec as never] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    ttl: { AccessToken: 600, IdToken: 600, AuthorizationCode: 60, Grant: 600, Interaction: 600, Session: 600 },
    cookies: { keys: [randomBytes(16).toString('hex')] },
  });
  const handle = provider.callback();

  const http: Server = createServer(async (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return handle(req, res);
    try {
      const details = await provider.interactionDetails(req, res);
      if (idp.person.decision === 'deny') {
        return await provider.interactionFinished(
          req,
          res,
          { error: 'access_denied', error_description: 'The person declined.' },
          { mergeWithLastSubmission: false },
        );
      }
      if (details.prompt.name === 'login') {
        return await provider.interactionFinished(
          req,
          res,
          { login: { accountId: idp.person.account } },
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
  idp.close = () =>
    new Promise((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    });
  return idp;
}
