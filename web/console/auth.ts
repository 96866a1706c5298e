// Signing in as the platform's first-party OAuth client `platform-console`: authorization code with
// PKCE (S256) through the platform's own sign-in page, tokens from POST /auth/token. The tokens live
// in this module's memory only (never in storage a script injected later could read back); the PKCE
// verifier and state stay in sessionStorage for the round trip through the sign-in page, and are
// removed when it returns.

export const clientId = 'platform-console';
const pendingKey = 'platform-console.sign-in';

export interface Tokens {
  access: string;
  refresh?: string;
  /** When the access token expires, in ms since the epoch. */
  expiresAt: number;
}

interface Pending {
  verifier: string;
  state: string;
  returnTo: string;
}

export const redirectUri = () => `${location.origin}/console/callback`;

const base64url = (bytes: ArrayBuffer | Uint8Array) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const random = (n: number) => base64url(crypto.getRandomValues(new Uint8Array(n)));

/** Sends the browser to the authorization endpoint; it comes back to /console/callback. */
export async function startSignIn(returnTo: string): Promise<void> {
  const verifier = random(32);
  const state = random(16);
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const pending: Pending = { verifier, state, returnTo };
  sessionStorage.setItem(pendingKey, JSON.stringify(pending));
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri(),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    resource: location.origin,
  });
  location.assign(`/oauth/authorize?${params}`);
}

/** The error an OAuth endpoint or the REST API answered, in words. */
async function failure(res: Response, what: string): Promise<Error> {
  const body = (await res.json().catch(() => ({}))) as { error?: string; error_description?: string; detail?: string; title?: string };
  return new Error(`${what}: ${body.error_description ?? body.detail ?? body.error ?? body.title ?? `HTTP ${res.status}`}`);
}

async function tokenRequest(form: Record<string, string>, what: string): Promise<Tokens> {
  const res = await fetch('/auth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
    credentials: 'omit',
    cache: 'no-store',
  });
  if (!res.ok) throw await failure(res, what);
  const body = (await res.json()) as { access_token: string; refresh_token?: string; expires_in?: number };
  return { access: body.access_token, refresh: body.refresh_token, expiresAt: Date.now() + (body.expires_in ?? 300) * 1000 };
}

/** The issuer the platform names in its metadata, which the callback's `iss` must equal (RFC 9207). */
async function issuer(): Promise<string | undefined> {
  const res = await fetch('/.well-known/oauth-authorization-server', { credentials: 'omit' });
  return res.ok ? ((await res.json()) as { issuer?: string }).issuer : undefined;
}

/** Redeems the code the sign-in page sent back; `returnTo` is where the person was when they signed in. */
export async function finishSignIn(params: URLSearchParams): Promise<{ tokens: Tokens; returnTo: string }> {
  const raw = sessionStorage.getItem(pendingKey);
  sessionStorage.removeItem(pendingKey);
  if (!raw) throw new Error('This sign-in was not started in this tab, or has already finished. Sign in again.');
  const pending = JSON.parse(raw) as Pending;
  if (params.get('state') !== pending.state)
    throw new Error('The answer from the sign-in page does not match this sign-in. Sign in again.');
  const error = params.get('error');
  if (error) throw new Error(`Sign-in failed: ${params.get('error_description') ?? error}`);
  const iss = params.get('iss');
  if (iss !== null && iss !== (await issuer())) throw new Error('The answer came from another authorization server. Sign in again.');
  const code = params.get('code');
  if (!code) throw new Error('The sign-in page sent back no code. Sign in again.');
  const tokens = await tokenRequest(
    { grant_type: 'authorization_code', code, redirect_uri: redirectUri(), client_id: clientId, code_verifier: pending.verifier },
    'Could not finish signing in',
  );
  const returnTo =
    pending.returnTo.startsWith('/console/') && !pending.returnTo.startsWith('/console/callback') ? pending.returnTo : '/console/';
  return { tokens, returnTo };
}

/** A new access token for the refresh token; the refresh token is rotated. */
export function refresh(tokens: Tokens): Promise<Tokens> {
  if (!tokens.refresh) return Promise.reject(new Error('The session has ended. Sign in again.'));
  return tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh, client_id: clientId }, 'The session has ended');
}

/** Revokes the refresh token (and with it the access token's family); failures are not the person's concern. */
export async function revoke(tokens: Tokens): Promise<void> {
  const token = tokens.refresh ?? tokens.access;
  await fetch('/oauth/revoke', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, token_type_hint: tokens.refresh ? 'refresh_token' : 'access_token', client_id: clientId }),
    credentials: 'omit',
  }).catch(() => undefined);
}
