import { z } from 'zod';
import type { OAuthClientDoc } from '../../store/oauth.js';
import { OAuthError } from './errors.js';

/** An OAuth client as the authorization server sees it, however it became known. */
export interface OAuthClient {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  token_endpoint_auth_method: OAuthClientDoc['token_endpoint_auth_method'];
  secret_sha256: string | null;
  client_uri?: string;
  /**
   * 'registered': RFC 7591 dynamic registration. 'metadata_document': the client id is a URL we
   * fetched. 'first_party': the platform's own web console, which signs a person in as themselves.
   */
  source: 'registered' | 'metadata_document' | 'first_party';
}

const loopbackHosts = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Which redirect URIs a client may register (OAuth 2.1 §2.3.1, RFC 8252): https; http only on a
 * loopback address (desktop clients, any port at redirect time); or a private-use scheme in reverse
 * domain form (`com.example.app:/callback`, `vscode://…`). Never a fragment, user info, or a scheme
 * a browser would run (javascript:, data:, file:, …).
 */
export function redirectUriProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URI';
  }
  if (url.hash || value.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not carry user information';
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https') return null;
  if (scheme === 'http') return loopbackHosts.has(url.hostname) ? null : 'http is allowed only for a loopback address (127.0.0.1, [::1])';
  if (['javascript', 'data', 'file', 'blob', 'about', 'vbscript', 'ftp', 'ws', 'wss'].includes(scheme))
    return `scheme ${scheme} is not allowed`;
  return /^[a-z][a-z0-9+.-]*$/.test(scheme) &&
    (scheme.includes('.') || ['vscode', 'cursor', 'claude', 'vscode-insiders', 'windsurf'].includes(scheme))
    ? null
    : 'a private-use scheme must be in reverse domain form (com.example.app)';
}

/** RFC 8252 §7.3: a loopback redirect URI matches whatever port the desktop client listens on at the time. */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  let want: URL;
  try {
    want = new URL(requested);
  } catch {
    return false;
  }
  if (want.protocol !== 'http:' || !loopbackHosts.has(want.hostname) || want.hash || want.username || want.password) return false;
  if (requested.includes('#')) return false;
  return registered.some((r) => {
    const have = new URL(r);
    return have.protocol === 'http:' && have.hostname === want.hostname && have.pathname === want.pathname && have.search === want.search;
  });
}

const uri = z.string().max(2000);
const authMethods = ['none', 'client_secret_post', 'client_secret_basic'] as const;

/** RFC 7591 client metadata: what we use is checked; other members are accepted and ignored (RFC 7591 §2). */
export const registrationSchema = z
  .object({
    redirect_uris: z.array(uri).min(1, 'at least one redirect URI is required').max(10),
    client_name: z.string().trim().min(1).max(200).optional(),
    client_uri: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
    logo_uri: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
    grant_types: z
      .array(z.enum(['authorization_code', 'refresh_token'], { error: 'only authorization_code and refresh_token are supported' }))
      .min(1)
      .optional(),
    response_types: z.array(z.literal('code', { error: 'only the code response type is supported' })).optional(),
    token_endpoint_auth_method: z.enum(authMethods, { error: `must be one of ${authMethods.join(', ')}` }).optional(),
    scope: z.string().max(1000).optional(),
    software_id: z.string().max(200).optional(),
    software_version: z.string().max(200).optional(),
  })
  .loose();

/** Checks a registration request: the error is RFC 7591's `invalid_redirect_uri` or `invalid_client_metadata`. */
export function parseRegistration(body: unknown): z.output<typeof registrationSchema> {
  const parsed = registrationSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || 'body';
    throw new OAuthError(
      field.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata',
      `${field}: ${issue.message}`,
    );
  }
  for (const value of parsed.data.redirect_uris) {
    const problem = redirectUriProblem(value);
    if (problem) throw new OAuthError('invalid_redirect_uri', `redirect URI ${value} ${problem}.`);
  }
  return parsed.data;
}

export const fromDoc = (doc: OAuthClientDoc): OAuthClient => ({
  client_id: doc._id,
  client_name: doc.client_name,
  redirect_uris: doc.redirect_uris,
  grant_types: doc.grant_types,
  token_endpoint_auth_method: doc.token_endpoint_auth_method,
  secret_sha256: doc.secret_sha256,
  ...(doc.client_uri ? { client_uri: doc.client_uri } : {}),
  source: 'registered',
});

/** The platform's own web console: a public client whose one redirect URI is on the API's own origin. */
export const consoleClientId = 'platform-console';
export const consoleClient: OAuthClient = {
  client_id: consoleClientId,
  client_name: 'Platform console',
  // Relative: resolved against the base URL the person reached the API by (authorization-request.ts).
  redirect_uris: ['/console/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  token_endpoint_auth_method: 'none',
  secret_sha256: null,
  source: 'first_party',
};
