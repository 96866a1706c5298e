import type { ArtifactDoc } from '../store/artifacts.js';
import type { ConnectionDoc, ConnectionStore } from '../store/connections.js';
import { boundResources, targetIsBound, targetName, type CallTarget } from './binding.js';
import { connectionIdFor } from './ids.js';
import { authorizerChanged, pinChanges, pinOf } from './pin.js';

/** Why a connection cannot give headers now; `code` is stable (the API's problem type, the MCP tool error's reason). */
export class ConnectionUnusable extends Error {
  override name = 'ConnectionUnusable';
  constructor(
    readonly code: 'not-connected' | 'connection-needs-reconsent' | 'connection-expired' | 'connection-resource-mismatch',
    message: string,
  ) {
    super(message);
  }
}

/** Asks the connection's workflow to refresh now (it serialises refreshes; a rotating refresh token is spent by its first use). */
export type Refresher = (connectionId: string, seenVersion: number) => Promise<void>;

/** A token this close to expiry is refreshed before it is projected: 10 s, or a tenth of a short token's life. */
function expiringSoon(doc: ConnectionDoc, now: number): boolean {
  if (!doc.expires_at) return false;
  const skew = Math.min(10_000, ((doc.lifetime_seconds ?? 60) * 1000) / 10);
  return doc.expires_at.getTime() - now < skew;
}

const authScheme = (tokenType: string) => (tokenType.toLowerCase() === 'bearer' ? 'Bearer' : tokenType);

/**
 * Projections (SPEC §2.5): the headers for one external call, made from a connection's access token.
 * Returned to the caller and never logged or stored; an expiring token is refreshed first.
 */
export class Projector {
  constructor(
    private readonly connections: ConnectionStore,
    private readonly refresh: Refresher,
  ) {}

  /**
   * `authorizer`: the authorizer as it is now, when the caller read it. A connection whose authorizer
   * no longer says what its person consented to (connections/pin.ts) gives nothing, and needs new
   * consent from then on: its tokens are dropped, so no later call or refresh can send them.
   */
  async project(doc: ConnectionDoc, authorizer?: ArtifactDoc | null): Promise<{ headers: Record<string, string>; expires_at?: Date }> {
    let current = doc;
    if (authorizer === null)
      throw new ConnectionUnusable('not-connected', `Authorizer ${current.authorizer_id} no longer exists: no token is sent for it.`);
    if (authorizer && current.status === 'active') {
      const changed = pinChanges(current.authorizer_pin, pinOf(authorizer));
      if (changed.length) {
        const error = authorizerChanged(current.authorizer_id, changed);
        await this.connections.fail(current._id, 'needs_reconsent', error);
        current = { ...current, status: 'needs_reconsent', error: { ...error, at: new Date() } };
      }
    }
    if (current.status === 'active' && expiringSoon(current, Date.now())) {
      await this.refresh(current._id, current.token_version);
      current = (await this.connections.get(current._id)) ?? { ...current, status: 'failed' };
    }
    if (current.status === 'needs_reconsent')
      throw new ConnectionUnusable(
        'connection-needs-reconsent',
        `Connection ${current._id} needs new consent: ${current.error?.detail ?? 'the provider no longer accepts its refresh token'}. Connect again with POST /connections/${current.authorizer_id}/start.`,
      );
    const tokens = current.status === 'active' ? this.connections.tokensOf(current) : null;
    if (!tokens)
      throw new ConnectionUnusable(
        'not-connected',
        `Connection ${current._id} is ${current.status}: it holds no tokens. Connect with POST /connections/${current.authorizer_id}/start.`,
      );
    if (current.expires_at && current.expires_at.getTime() <= Date.now())
      throw new ConnectionUnusable(
        'connection-expired',
        `Connection ${current._id}'s access token has expired and could not be refreshed yet; try again shortly.`,
      );
    return {
      headers: { Authorization: `${authScheme(tokens.token_type)} ${tokens.access_token}` },
      ...(current.expires_at ? { expires_at: current.expires_at } : {}),
    };
  }

  /**
   * The person's connection to an authorizer (the oauth2 `auth` mode of an MCP server), for a call to
   * `target`. An authorizer bound to a protected resource (see binding.ts) gives its tokens only to a
   * call that resource identifies: refused before the connection is even read. `authorizer` is the
   * authorizer as read now: the connection must still be pinned to it (see `project`).
   */
  async forPerson(
    userId: string,
    authorizerId: string,
    call: { target: CallTarget; authorizer: ArtifactDoc | null },
  ): Promise<{ headers: Record<string, string>; expires_at?: Date }> {
    const resources = boundResources(call.authorizer);
    if (!targetIsBound(resources, call.target))
      throw new ConnectionUnusable(
        'connection-resource-mismatch',
        `Authorizer ${authorizerId} gets tokens for ${resources.join(', ')} only, and this call goes to ${targetName(call.target)}: no token is sent there. Point the server back at that resource, or give it its own authorizer.`,
      );
    const doc = await this.connections.get(connectionIdFor(userId, authorizerId));
    if (!doc)
      throw new ConnectionUnusable(
        'not-connected',
        `You have no connection to authorizer ${authorizerId}. Connect with POST /connections/${authorizerId}/start, then call again.`,
      );
    return this.project(doc, call.authorizer);
  }
}
