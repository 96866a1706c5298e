import type { Logger } from '../kernel/logging/logger.js';
import type { ApiKeyDoc, ApiKeyStore } from '../store/api-keys.js';
import type { ConsentStore } from '../store/consents.js';
import type { OAuthStore } from '../store/oauth.js';
import type { ServerCredentialStore } from '../store/server-credentials.js';
import type { UserStore } from '../store/users.js';
import { sameHash, sha256 } from '../kernel/crypto/opaque.js';
import { withDeadline } from '../store/deadline.js';
import { delegationKind } from './delegation.js';
import { ScopeSet, userPrincipal, type Principal } from './principal.js';
import { TokenError, type TokenService } from './tokens.js';

/** What turning a credential into a principal reads: the stores, and the token service. */
export interface CredentialServices {
  apiKeys: ApiKeyStore;
  tokens: TokenService;
  users: UserStore;
  serverCredentials: ServerCredentialStore;
  consents: ConsentStore;
  oauth: OAuthStore;
  logger: Logger;
}

/** API keys look like `pk_<id>_<secret>`, so they are recognisable in a leak scan and distinct from JWTs. */
export const apiKeyPattern = /^pk_([0-9a-f]{32})_([0-9A-Za-z]{43})$/;

async function apiKeyOf(services: CredentialServices, key: string): Promise<ApiKeyDoc> {
  const match = apiKeyPattern.exec(key);
  const doc = match ? await services.apiKeys.get(match[1]!) : null;
  if (!doc || !sameHash(doc.secret_sha256, sha256(match![2]!))) throw new TokenError('API key is not valid');
  return doc;
}

const keyPrincipal = (doc: ApiKeyDoc): Principal => ({
  actor: { kind: 'api_key', id: doc._id },
  subject: doc.owner_id,
  onBehalfOf: false,
  scopes: new ScopeSet(doc.scopes),
  filters: doc.resource_filters,
  isAdmin: false,
});

export async function principalFromApiKey(services: CredentialServices, key: string): Promise<Principal> {
  return keyPrincipal(await apiKeyOf(services, key));
}

/** A key used directly as a bearer records its use at most this often: a busy key does not write on every request. */
export const directUseIntervalMs = 60_000;

/** The longest a record of a use may take: past it, it is given up (and logged), never the request's failure. */
const useRecordDeadlineMs = 2_000;

/**
 * Records a credential's use (`last_used_at`) within a short deadline; a failure is logged, never
 * thrown: what the credential was used for goes on without it.
 */
export async function recordUse(services: Pick<CredentialServices, 'logger'>, what: string, write: () => Promise<unknown>): Promise<void> {
  try {
    await withDeadline(`${what} use record`, write(), useRecordDeadlineMs);
  } catch (err) {
    services.logger.warn({ err }, `${what}: its use was not recorded`);
  }
}

/**
 * A key used directly as a bearer: its use is recorded without the request waiting for it, and only
 * when the last one recorded (as the key was just read, then as the store has it, for replicas racing)
 * is older than directUseIntervalMs.
 */
function recordDirectUse(services: CredentialServices, doc: ApiKeyDoc): void {
  const now = new Date();
  if (doc.last_used_at && now.getTime() - doc.last_used_at.getTime() < directUseIntervalMs) return;
  void recordUse(services, `API key ${doc._id}`, () => services.apiKeys.touchUnlessRecent(doc._id, now, directUseIntervalMs));
}

function narrow(granted: string[], tokenScope: unknown): ScopeSet {
  if (typeof tokenScope !== 'string') return new ScopeSet(granted);
  const requested = new Set(tokenScope.split(' '));
  return new ScopeSet(granted.filter((s) => requested.has(s)));
}

/**
 * Turns a bearer token into a principal. Credential-backed tokens are checked against the credential
 * as it is now: a deleted, deactivated or rotated credential, or a revoked key, stops at once, and
 * scope or filter changes apply to tokens already issued.
 */
export async function principalFromBearer(
  services: CredentialServices,
  token: string,
  audiences: string[] = [services.tokens.audience],
): Promise<Principal> {
  if (token.startsWith('pk_')) {
    const doc = await apiKeyOf(services, token);
    recordDirectUse(services, doc);
    return keyPrincipal(doc);
  }
  const claims = await services.tokens.verify(token, audiences);
  switch (claims.kind ?? 'user') {
    case 'user': {
      const user = await services.users.findById(claims.sub);
      if (!user) throw new TokenError('token subject no longer exists');
      return userPrincipal(user._id, user.is_admin);
    }
    case 'server': {
      const cred = await services.serverCredentials.get(claims.sub);
      if (!cred || !cred.active || cred.generation !== claims.gen) throw new TokenError('server credential is no longer valid');
      return {
        actor: { kind: 'server_credential', id: cred._id },
        subject: cred.owner_id,
        onBehalfOf: false,
        scopes: narrow(cred.scopes, claims.scope),
        filters: cred.resource_filters,
        isAdmin: false,
      };
    }
    case 'api_key': {
      const doc = typeof claims.akid === 'string' ? await services.apiKeys.get(claims.akid) : null;
      if (!doc || doc.owner_id !== claims.sub) throw new TokenError('API key is no longer valid');
      return {
        actor: { kind: 'api_key', id: doc._id },
        subject: doc.owner_id,
        onBehalfOf: false,
        scopes: narrow(doc.scopes, claims.scope),
        filters: doc.resource_filters,
        isAdmin: false,
      };
    }
    case 'console': {
      // The platform's own console: the person themselves, for as long as the account, the family and
      // the browser session it was issued through (sign-out ends it, on every replica) live.
      if (typeof claims.sid !== 'string') throw new TokenError('the console session was ended');
      const [user, revoked, ended] = await Promise.all([
        services.users.findById(claims.sub),
        services.oauth.isFamilyRevoked(String(claims.fam)),
        services.oauth.isSessionEnded(claims.sid),
      ]);
      if (!user || revoked || ended) throw new TokenError('the console session was ended');
      return { ...userPrincipal(user._id, user.is_admin), console: { clientId: String(claims.client_id), family: String(claims.fam) } };
    }
    case 'oauth': {
      // An OAuth client's token lives as long as the person's consent (the same grant) and its family.
      const clientId = String(claims.client_id);
      const [consent, revoked] = await Promise.all([
        services.consents.get(claims.sub, 'oauth_client', clientId),
        services.oauth.isFamilyRevoked(String(claims.fam)),
      ]);
      if (!consent?.oauth || consent.oauth.grant_id !== claims.gid || revoked) throw new TokenError('the authorization was revoked');
      return {
        actor: { kind: 'oauth_client', id: clientId },
        subject: claims.sub,
        onBehalfOf: false,
        scopes: narrow(consent.oauth.scopes, claims.scope),
        filters: consent.oauth.filters,
        isAdmin: false,
      };
    }
    case delegationKind:
      // A delegation token tells a first-party server who it acts for (SPEC §5.7); it is no access token here.
      throw new TokenError('a delegation token is not an access token');
    default:
      throw new TokenError('token kind is not recognised');
  }
}
