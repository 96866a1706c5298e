import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { AuthorizerContent } from '../artifacts/content-types/authorizer.js';
import type { FetchLike } from '../net/outbound.js';

/**
 * The OAuth 2 client side of a connection (RFC 6749 authorization code grant, RFC 7636 PKCE, RFC 7009
 * revocation, RFC 8414 metadata), over the guarded outbound client: an authorizer's URLs are
 * user-supplied and get the same SSRF checks as MCP servers.
 */

const b64url = (bytes: Buffer) => bytes.toString('base64url');

export const newState = () => b64url(randomBytes(32));
export const stateHash = (state: string) => createHash('sha256').update(state).digest('hex');

/** A PKCE S256 pair: the verifier stays with the platform, the challenge goes in the redirect. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = b64url(randomBytes(32));
  return { verifier, challenge: b64url(createHash('sha256').update(verifier).digest()) };
}

export function authorizationUrl(authorizer: AuthorizerContent, p: { state: string; redirectUri: string; challenge?: string }): string {
  const url = new URL(authorizer.auth_url);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', authorizer.client_id);
  url.searchParams.set('redirect_uri', p.redirectUri);
  if (authorizer.scopes.length > 0) url.searchParams.set('scope', authorizer.scopes.join(' '));
  url.searchParams.set('state', p.state);
  if (p.challenge) {
    url.searchParams.set('code_challenge', p.challenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url.toString();
}

const tokenResponse = z.object({
  access_token: z.string().min(1),
  token_type: z.string().min(1).default('Bearer'),
  expires_in: z.coerce.number().int().positive().optional(),
  refresh_token: z.string().min(1).optional(),
  scope: z.string().optional(),
});
export type TokenResponse = z.infer<typeof tokenResponse>;

/** The token endpoint said no (4xx: never retried), or could not be reached (`retryable`). */
export class TokenEndpointError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** The RFC 6749 §5.2 `error` code, e.g. invalid_grant. */
    readonly error?: string,
  ) {
    super(message);
    this.name = 'TokenEndpointError';
  }
}

export interface OAuthClient {
  authorizer: AuthorizerContent;
  clientSecret: string | null;
}

/** Client authentication: HTTP Basic with the secret (RFC 6749 §2.3.1, which every server must accept), else a public client. */
function clientAuth({ authorizer, clientSecret }: OAuthClient, form: URLSearchParams): Record<string, string> {
  if (clientSecret === null) {
    form.set('client_id', authorizer.client_id);
    return {};
  }
  const pair = `${encodeURIComponent(authorizer.client_id)}:${encodeURIComponent(clientSecret)}`;
  return { authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
}

async function post(
  fetch: FetchLike,
  url: string,
  client: OAuthClient,
  fields: Record<string, string>,
): Promise<{ status: number; body: unknown }> {
  const form = new URLSearchParams(fields);
  const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...clientAuth(client, form) };
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers, body: form.toString(), redirect: 'manual' });
  } catch (err) {
    throw new TokenEndpointError(`${url} could not be reached: ${(err as Error).message}`, true);
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = Object.fromEntries(new URLSearchParams(text)); // some providers answer form-encoded
  }
  return { status: res.status, body };
}

/**
 * The resource indicator (RFC 8707) an authorizer asks tokens for: the `resource` parameter of its
 * auth_url, which the authorization request carries as it is; the token requests name it again, so
 * the tokens are audience-restricted to that server (MCP authorization requires both).
 */
export function resourceOf(authorizer: Pick<AuthorizerContent, 'auth_url'>): string | null {
  return new URL(authorizer.auth_url).searchParams.get('resource');
}

/** A grant at the token endpoint: the authorization code exchange or a refresh. */
export async function requestTokens(fetch: FetchLike, client: OAuthClient, fields: Record<string, string>): Promise<TokenResponse> {
  const { token_url: url } = client.authorizer;
  const resource = resourceOf(client.authorizer);
  const { status, body } = await post(fetch, url, client, resource ? { ...fields, resource } : fields);
  if (status >= 200 && status < 300) {
    const parsed = tokenResponse.safeParse(body);
    if (!parsed.success)
      throw new TokenEndpointError(
        `The token endpoint's answer is not a token response: ${parsed.error.issues[0]!.path.join('.')} ${parsed.error.issues[0]!.message}.`,
        false,
        status,
      );
    return parsed.data;
  }
  const { error, error_description } = (body ?? {}) as { error?: unknown; error_description?: unknown };
  const code = typeof error === 'string' ? error.slice(0, 100) : undefined;
  const said = [code, typeof error_description === 'string' ? error_description.slice(0, 300) : undefined].filter(Boolean).join(': ');
  const retryable = status >= 500 || status === 429;
  throw new TokenEndpointError(`The token endpoint answered ${status}${said ? ` (${said})` : ''}.`, retryable, status, code);
}

const metadata = z.object({ revocation_endpoint: z.url().optional() });

/** The provider's revocation endpoint from its RFC 8414 / OpenID metadata, looked up beside its authorization endpoint. */
async function revocationEndpoint(fetch: FetchLike, authorizer: AuthorizerContent): Promise<string | null> {
  const origin = new URL(authorizer.auth_url).origin;
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    try {
      const res = await fetch(origin + path, { headers: { accept: 'application/json' }, redirect: 'manual' });
      if (!res.ok) continue;
      const parsed = metadata.safeParse(await res.json());
      if (parsed.success && parsed.data.revocation_endpoint) return parsed.data.revocation_endpoint;
    } catch {
      // no metadata there
    }
  }
  return null;
}

/**
 * Revokes the connection's grant at the provider (RFC 7009): the refresh token, which takes the grant
 * with it, else the access token. False when the provider publishes no revocation endpoint.
 */
export async function revoke(
  fetch: FetchLike,
  client: OAuthClient,
  token: { value: string; hint: 'refresh_token' | 'access_token' },
): Promise<boolean> {
  const endpoint = await revocationEndpoint(fetch, client.authorizer);
  if (!endpoint) return false;
  const { status } = await post(fetch, endpoint, client, { token: token.value, token_type_hint: token.hint });
  if (status >= 200 && status < 300) return true;
  throw new TokenEndpointError(`The revocation endpoint answered ${status}.`, status >= 500 || status === 429, status);
}
