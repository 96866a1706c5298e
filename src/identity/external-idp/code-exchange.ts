import { z } from 'zod';
import type { Outbound } from '../../net/outbound.js';
import type { IdentityProviderConfig } from './config.js';
import { ExternalSignInError } from './errors.js';
import { invalidResponse, unreachable, type ProviderMetadata } from './metadata.js';

const tokenResponse = z.object({
  id_token: z.string().min(1),
  access_token: z.string().min(1).optional(),
  token_type: z.string().optional(),
});
export type TokenResponse = z.infer<typeof tokenResponse>;

/** RFC 6749 §2.3.1: client_secret_basic with a secret (the method every server must accept), else a public client naming itself. */
function clientAuthentication(provider: IdentityProviderConfig, form: URLSearchParams): Record<string, string> {
  if (provider.client_secret === undefined) {
    form.set('client_id', provider.client_id);
    return {};
  }
  const pair = `${encodeURIComponent(provider.client_id)}:${encodeURIComponent(provider.client_secret)}`;
  return { authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
}

/** The authorization code grant with the PKCE verifier (RFC 6749 §4.1.3, RFC 7636 §4.5). */
export async function exchangeCode(
  outbound: Outbound,
  provider: IdentityProviderConfig,
  metadata: ProviderMetadata,
  grant: { code: string; redirectUri: string; codeVerifier: string },
): Promise<TokenResponse> {
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.codeVerifier,
  });
  const headers = { 'content-type': 'application/x-www-form-urlencoded', ...clientAuthentication(provider, form) };
  let answer: { status: number; body: unknown };
  try {
    // A token endpoint has no business redirecting: the code and the secret go to it alone.
    answer = await outbound.fetchJson(metadata.token_endpoint, { method: 'POST', headers, body: form.toString(), redirect: 'error' });
  } catch (err) {
    if (err instanceof Error && /not JSON/.test(err.message)) throw invalidResponse(provider, `token endpoint: ${err.message}`);
    throw unreachable(provider, 'token endpoint', err);
  }
  const { status, body } = answer;
  if (status >= 500 || status === 429) throw unreachable(provider, 'token endpoint', new Error(`answered ${status}`));
  if (status < 200 || status >= 300) {
    const error = (body as { error?: unknown } | null)?.error;
    const code = typeof error === 'string' && /^[\w.-]{1,64}$/.test(error) ? error : undefined;
    throw new ExternalSignInError(
      'idp_error',
      `${provider.label} did not accept the sign-in${code ? ` (${code})` : ''}. Please try again.`,
      `token endpoint answered ${status}${code ? ` ${code}` : ''}`,
    );
  }
  const parsed = tokenResponse.safeParse(body);
  if (!parsed.success) throw invalidResponse(provider, 'token endpoint: the answer has no id_token');
  if (parsed.data.token_type && parsed.data.token_type.toLowerCase() !== 'bearer') {
    throw invalidResponse(provider, `token endpoint: token_type ${parsed.data.token_type}, not Bearer`);
  }
  return parsed.data;
}

const userInfo = z.object({
  sub: z.string(),
  email: z.string().optional(),
  email_verified: z.union([z.boolean(), z.enum(['true', 'false'])]).optional(),
  name: z.string().optional(),
});
export type UserInfo = z.infer<typeof userInfo>;

/** The UserInfo endpoint (OpenID Connect Core §5.3), asked only when the id_token carries no e-mail. JSON answers only. */
export async function fetchUserInfo(
  outbound: Outbound,
  provider: IdentityProviderConfig,
  endpoint: string,
  accessToken: string,
): Promise<UserInfo> {
  let answer: { status: number; body: unknown };
  try {
    answer = await outbound.fetchJson(endpoint, { headers: { authorization: `Bearer ${accessToken}` }, redirect: 'error' });
  } catch (err) {
    if (err instanceof Error && /not JSON/.test(err.message)) throw invalidResponse(provider, `userinfo: ${err.message}`);
    throw unreachable(provider, 'userinfo', err);
  }
  if (answer.status >= 500 || answer.status === 429) throw unreachable(provider, 'userinfo', new Error(`answered ${answer.status}`));
  const parsed = userInfo.safeParse(answer.body);
  if (answer.status !== 200 || !parsed.success) throw invalidResponse(provider, `userinfo answered ${answer.status} without a JSON sub`);
  return parsed.data;
}
