import { SignJWT } from 'jose';
import { createHash, randomUUID } from 'node:crypto';
import { grantsOf, type GrantFlag, type Shareable } from './grants.js';
import { parseFineScope, ScopeSet, scopes as coarseScopes, type Principal, type Scope } from './principal.js';
import type { SigningKeys } from './signing-keys.js';
import { delegationMetaKey, delegationTokenType } from '../platform-sdk/delegation.js';

/**
 * Delegation tokens (SPEC §5.7, RFC 8693): when the console proxies a viewer's `tools/call` to a
 * first-party server, the call carries a short-lived JWT saying which person it is for, through which
 * host session, with which scopes, for which workspace. Its audience is the server's credential, so
 * the platform's own authentication refuses it (TokenService checks the audience and this `typ`, the
 * bearer middleware this `kind`): it asserts who the person is to the server, and opens nothing here.
 */

/**
 * The JWT header's `typ` (`delegation+jwt`: never mistaken for an access token, `JWT`), and where the
 * token travels (the `tools/call` request's `params._meta["platform/delegation"]`, beside the
 * platform's other `_meta` keys): the wire format, defined once, by the SDK that servers verify it with.
 */
export { delegationMetaKey, delegationTokenType };
/** The `kind` claim, beside the platform's other token kinds (user, console, server, api_key, oauth). */
export const delegationKind = 'delegation';
/** Five minutes: long enough for one tool call and its retries, short enough that a leaked one soon dies. */
export const delegationTtlSeconds = 300;

/** What a hosted viewer may ever be delegated, whatever the person holds: no manage (archive, delete), no streams. */
export const viewerScopes: readonly Scope[] = ['artifact:read', 'artifact:write', 'artifact:invoke', 'search:read'];

/** The scopes a grant flag on the workspace stands for. */
const grantScopes: Partial<Record<GrantFlag, Scope[]>> = {
  R: ['artifact:read'],
  C: ['artifact:write'],
  U: ['artifact:write'],
  D: ['artifact:manage'],
  I: ['artifact:invoke'],
  S: ['search:read'],
};

/**
 * The inputs of a delegation token, as a workflow carries them: no secret, and no token (one is
 * minted inside the activity, right before the call, and never stored).
 */
export interface DelegationRequest {
  /** `sub`: the person. */
  person: string;
  /** `act.sub`: the host, the console's OAuth client id. */
  actor: string;
  /** `act.sid`: the host session, an opaque digest of the console's token family. */
  session?: string;
  /** The person's scopes there (token scopes narrowed by their grants on the workspace), before the viewer's and the credential's. */
  scopes: string[];
  /** `workspace_id`: the workspace the call is made in (the server's). */
  workspaceId: string;
}

/** The first-party server's credential the token is for: its client id is the audience, its scopes a bound. */
export interface DelegationAudience {
  clientId: string;
  scopes: string[];
}

/** Whether `held` grants one scope string (coarse, or fine over a MIME pattern). */
function covers(held: ScopeSet, scope: string): boolean {
  if ((coarseScopes as readonly string[]).includes(scope)) return held.coarse.has(scope as Scope);
  const fine = parseFineScope(scope);
  return fine !== null && held.allowsType(`artifact:${fine.action}`, fine.mime, [fine.kind]);
}

/** The scopes held by both lists: each one's scopes the other covers, those a coarse one makes redundant dropped. */
export function intersectScopes(a: readonly string[], b: readonly string[]): string[] {
  const [left, right] = [new ScopeSet(a), new ScopeSet(b)];
  const both = new ScopeSet([...left.toJSON().filter((s) => covers(right, s)), ...right.toJSON().filter((s) => covers(left, s))]);
  const coarse = [...both.coarse];
  const fine = both.fine.map((f) => `${f.kind}:${f.mime}:${f.action}`).filter((s) => !covers(new ScopeSet(coarse), s));
  return [...new Set([...coarse, ...fine])];
}

/** An opaque, stable name for a console session (its token family): the server can tell sessions apart, never use the id. */
export const hostSessionId = (familyId: string) =>
  createHash('sha256').update(`delegation-session:${familyId}`).digest('base64url').slice(0, 22);

/**
 * What a call needs for a delegation token, or null when it gets none: only a person acting through
 * the platform's own console (the host of viewers) is delegated. Their scopes are narrowed by their
 * grants on the workspace the call is made in.
 */
export function delegationRequest(principal: Principal, workspace: Shareable & { _id: string }): DelegationRequest | null {
  const host = principal.console;
  if (!host || principal.actor.kind !== 'user' || principal.onBehalfOf) return null;
  const granted = [...grantsOf(workspace, principal.subject)].flatMap((f) => grantScopes[f] ?? []);
  return {
    person: principal.subject,
    actor: host.clientId,
    ...(host.family ? { session: hostSessionId(host.family) } : {}),
    scopes: intersectScopes(principal.scopes.toJSON(), granted),
    workspaceId: workspace._id,
  };
}

/** Mints delegation tokens with the platform's current signing key (the one /.well-known/jwks.json publishes). */
export class DelegationTokens {
  constructor(
    private readonly keys: SigningKeys,
    private readonly issuer: string,
    private readonly ttlSeconds = delegationTtlSeconds,
  ) {}

  /** The token for one call: scopes no wider than the person's, the viewer's, or the server's credential's. */
  async mint(request: DelegationRequest, audience: DelegationAudience): Promise<string> {
    const scope = intersectScopes(intersectScopes(request.scopes, viewerScopes), audience.scopes);
    const { kid, privateKey } = await this.keys.signingKey();
    return new SignJWT({
      kind: delegationKind,
      scope: scope.join(' '),
      workspace_id: request.workspaceId,
      act: { sub: request.actor, ...(request.session ? { sid: request.session } : {}) },
    })
      .setProtectedHeader({ alg: 'RS256', kid, typ: delegationTokenType })
      .setIssuer(this.issuer)
      .setSubject(request.person)
      .setAudience(audience.clientId)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .setJti(randomUUID())
      .sign(privateKey);
  }
}
