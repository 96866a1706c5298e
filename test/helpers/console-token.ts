// A `platform-console` access token (token kind `console`) the way the console gets one: the
// authorization code flow with PKCE, the person signing in on the platform's own sign-in page (no
// consent page: it is their own account). No browser engine: the sign-in page runs no script.
import assert from 'node:assert/strict';
import { Browser, formFields, pkce } from './oauth-browser.js';

export const consoleClientId = 'platform-console';

export async function consoleToken(platformUrl: string, person: { email: string; password: string }): Promise<string> {
  const callback = `${platformUrl}/console/callback`;
  const { verifier, challenge } = pkce();
  const browser = new Browser(platformUrl);
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: consoleClientId,
    redirect_uri: callback,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'console-token',
    resource: platformUrl,
  });
  const login = await browser.get(`/oauth/authorize?${query}`);
  assert.equal(login.status, 200, login.html);
  const signedIn = await browser.post('/oauth/login', { ...formFields(login.html, '/oauth/login'), ...person });
  assert.equal(signedIn.status, 303, signedIn.html);
  const back = await browser.get(signedIn.location!);
  assert.equal(back.status, 303, 'no consent page for the console');
  const code = new URL(back.location!).searchParams.get('code');
  assert.ok(code, back.location ?? 'no redirect');
  const res = await fetch(`${platformUrl}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: callback,
      client_id: consoleClientId,
      code_verifier: verifier,
    }),
  });
  const body = (await res.json()) as { access_token?: string };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.access_token!;
}
