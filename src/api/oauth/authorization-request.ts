import { scopes } from '../../identity/principal.js';
import type { AuthorizationRequest } from '../../identity/oauth/browser-session.js';
import { normalResource, scopeList } from '../../identity/oauth/authorization-server.js';
import { redirectUriMatches, type OAuthClient } from '../../identity/oauth/clients.js';
import { OAuthError } from '../../identity/oauth/errors.js';
import type { PendingAuthorization } from '../../operations/authorizations.js';
import { registeredClient } from '../../operations/oauth-clients.js';
import type { AppContext } from '../context.js';
import { mcpClientResourcePath, mcpPath, publicBase } from '../public-url.js';

/** A request the client cannot be told about (no verified redirect URI): shown to the person instead. */
export class PageError extends Error {}

/** A refusal sent back to the client's verified redirect URI (RFC 6749 §4.1.2.1). */
export class RedirectError extends Error {
  constructor(
    readonly request: Pick<AuthorizationRequest, 'redirect_uri' | 'state' | 'issuer'>,
    readonly error: OAuthError,
  ) {
    super(error.description);
  }
}

const challengePattern = /^[A-Za-z0-9_-]{43}$/;

function single(ctx: AppContext, name: string): string | undefined {
  const value = ctx.query[name];
  if (Array.isArray(value)) throw new OAuthError('invalid_request', `${name} must appear once.`);
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Validates an authorization request (OAuth 2.1 §4.1.1, RFC 8707). Until the client and its redirect
 * URI are verified, errors are PageErrors; after, RedirectErrors for the client.
 */
export async function parseAuthorizationRequest(ctx: AppContext): Promise<PendingAuthorization> {
  const base = publicBase(ctx, ctx.services.config);
  let clientId: string | undefined;
  let redirectUri: string | undefined;
  try {
    clientId = single(ctx, 'client_id');
    redirectUri = single(ctx, 'redirect_uri');
  } catch (err) {
    throw new PageError((err as OAuthError).description);
  }
  if (!clientId) throw new PageError('The application did not say who it is (client_id is missing).');
  let client: OAuthClient | null;
  try {
    client = await registeredClient(ctx.services, clientId);
  } catch (err) {
    if (err instanceof OAuthError) throw new PageError(err.description);
    throw err;
  }
  if (!client) throw new PageError('This application is not registered here (unknown client_id).');
  if (!redirectUri) throw new PageError('The application did not say where to return (redirect_uri is missing).');
  // The console's redirect URI is on the API's own origin, by whichever name the person reached it,
  // matched exactly (not on any loopback port, as a desktop client's is).
  const matches =
    client.source === 'first_party'
      ? [ctx.services.config.apiUri, base].some((b) => client.redirect_uris.some((path) => `${b}${path}` === redirectUri))
      : redirectUriMatches(client.redirect_uris, redirectUri);
  if (!matches) {
    throw new PageError('The return address (redirect_uri) is not one this application registered.');
  }
  const state = typeof ctx.query.state === 'string' ? ctx.query.state : undefined;
  if (state !== undefined && state.length > 512) throw new PageError('The application sent a state longer than 512 characters.');
  const answerTo = { redirect_uri: redirectUri, issuer: base, ...(state === undefined ? {} : { state }) };
  try {
    if (single(ctx, 'response_type') !== 'code') throw new OAuthError('unsupported_response_type', 'response_type must be code.');
    if (!client.grant_types.includes('authorization_code')) {
      throw new OAuthError('unauthorized_client', 'This client did not register the authorization_code grant.');
    }
    const challenge = single(ctx, 'code_challenge');
    if (single(ctx, 'code_challenge_method') !== 'S256' || !challenge || !challengePattern.test(challenge)) {
      throw new OAuthError(
        'invalid_request',
        'PKCE is required: code_challenge (43 base64url characters) with code_challenge_method=S256.',
      );
    }
    const asked = scopeList(single(ctx, 'scope') ?? '');
    const unknown = asked.filter((s) => !(scopes as readonly string[]).includes(s));
    if (unknown.length) throw new OAuthError('invalid_scope', `Unknown scope: ${unknown.join(' ')}.`);
    const resource = normalResource(single(ctx, 'resource') ?? base);
    // This API, its MCP endpoint, or an MCP client configuration's endpoint (issue #36), by either name.
    // A configuration's is not looked up here: its endpoint checks on every request that the caller
    // may read it, and the token is good nowhere else (authenticate.ts).
    const ours = [ctx.services.config.apiUri, base].flatMap((b) => [b, `${b}${mcpPath}`]);
    const configuration = [ctx.services.config.apiUri, base].some(
      (b) => resource.startsWith(`${b}/`) && mcpClientResourcePath(resource.slice(b.length)) !== undefined,
    );
    if (!ours.includes(resource) && !configuration) {
      throw new OAuthError(
        'invalid_target',
        `resource must be this API (${base}), its MCP endpoint (${base}${mcpPath}) or an MCP client configuration's endpoint (${base}${mcpPath}/clients/<id>).`,
      );
    }
    return {
      client,
      request: {
        ...answerTo,
        client_id: client.client_id,
        code_challenge: challenge,
        scope: asked.length ? asked : [...scopes],
        resource,
      },
    };
  } catch (err) {
    if (err instanceof OAuthError) throw new RedirectError(answerTo, err);
    throw err;
  }
}
