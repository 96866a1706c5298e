// Issue #30: signing out ends the browser session on the server, for every API replica. A session
// cookie captured before the sign-out (copied from the browser, a proxy log, a shared machine) gets no
// console code, no consents page and no session codec call on another replica afterwards, and the
// console's refresh and access tokens issued through that session stop working with it. Sign-out is not
// rate-limited: flooding the per-address sign-in bucket does not keep anyone signed in.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiProcess, type ApiProcess } from '../helpers/api-process.js';
import { Browser, formFields, pkce, sessionCookie } from '../helpers/oauth-browser.js';
import { adminEmail, adminPassword, startPlatform, type TestPlatform } from '../helpers/platform.js';

const uiOrigin = 'http://ui.sign-out.test:8233';
const env = { SIGN_IN_LOCK_AFTER: '0', AUTH_RATE_LIMIT_PER_MINUTE: '0', CODEC_ALLOWED_ORIGINS: uiOrigin };

let platform: TestPlatform;
let replica: ApiProcess;
/** A replica whose per-address credential limit is low enough to exhaust. */
let limited: ApiProcess;
const limitPerMinute = 3;

before(async () => {
  platform = await startPlatform(env, { worker: false });
  // Replicas behind one balancer share the public URL (the session cookie's audience is derived from it).
  [replica, limited] = await Promise.all([
    apiProcess(platform, { ...env, PLATFORM_API_URI: platform.config.apiUri }),
    apiProcess(platform, { ...env, AUTH_RATE_LIMIT_PER_MINUTE: String(limitPerMinute), PLATFORM_API_URI: platform.config.apiUri }),
  ]);
});
after(async () => {
  await Promise.all([replica?.stop(), limited?.stop()]);
  await platform?.close();
});

function consoleAuthorize(base: string, challenge: string) {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: 'platform-console',
    redirect_uri: `${base}/console/callback`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'sign-out',
    resource: base,
  });
  return `/oauth/authorize?${q}`;
}

async function tokenEndpoint(base: string, form: Record<string, string>) {
  const res = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** What a browser does to use the console: sign in on `base`'s page and redeem the code. */
async function consoleSignIn(base: string) {
  const browser = new Browser(base);
  const { verifier, challenge } = pkce();
  const login = await browser.get(consoleAuthorize(base, challenge));
  assert.equal(login.status, 200, login.html);
  const signedIn = await browser.post('/oauth/login', {
    ...formFields(login.html, '/oauth/login'),
    email: adminEmail,
    password: adminPassword,
  });
  assert.equal(signedIn.status, 303, signedIn.html);
  const cookie = sessionCookie(signedIn.headers)!;
  const back = await browser.get(signedIn.location!);
  assert.equal(back.status, 303, back.html);
  const code = new URL(back.location!).searchParams.get('code')!;
  const issued = await tokenEndpoint(base, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: `${base}/console/callback`,
    client_id: 'platform-console',
    code_verifier: verifier,
  });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  return { browser, cookie, tokens: issued.body };
}

/** What the captured cookie still gets on a replica. */
async function withCookie(base: string, cookie: string) {
  const page = (path: string) => fetch(`${base}${path}`, { headers: { cookie }, redirect: 'manual' });
  const authorize = await page(consoleAuthorize(base, pkce().challenge));
  const consents = await page('/oauth/consents');
  const codec = await fetch(`${base}/codec/session/decode`, {
    method: 'POST',
    headers: { cookie, origin: uiOrigin, 'content-type': 'application/json', 'x-namespace': platform.config.TEMPORAL_NAMESPACE },
    body: JSON.stringify({ payloads: [] }),
  });
  return {
    authorize: { status: authorize.status, location: authorize.headers.get('location'), html: await authorize.text() },
    consents: { status: consents.status, html: await consents.text() },
    codec: { status: codec.status, body: await codec.text() },
  };
}

describe('sign-out ends the session on the server, across replicas', () => {
  it('refuses a cookie captured before the sign-out, and the tokens issued through it, on another replica', async () => {
    const { browser, cookie, tokens } = await consoleSignIn(platform.url);

    // Before: on the other replica the cookie is a signed-in administrator.
    const before = await withCookie(replica.url, cookie);
    assert.equal(before.authorize.status, 303, 'a console code, no sign-in page');
    assert.match(before.authorize.location ?? '', /[?&]code=/);
    assert.match(before.consents.html, /action="\/oauth\/consents\/revoke"|authorizations/i);
    assert.equal(before.codec.status, 200, before.codec.body);

    const signedOut = await browser.post('/oauth/sign-out', {});
    assert.equal(signedOut.status, 200, signedOut.html);

    const afterwards = await withCookie(replica.url, cookie);
    assert.equal(afterwards.authorize.status, 200, `the sign-in page, no code: ${afterwards.authorize.location}`);
    assert.equal(afterwards.authorize.location, null);
    assert.match(afterwards.authorize.html, /action="\/oauth\/login"/);
    assert.match(afterwards.consents.html, /action="\/oauth\/login"/, 'the consents page asks to sign in');
    assert.doesNotMatch(afterwards.consents.html, /action="\/oauth\/consents\/revoke"/);
    assert.equal(afterwards.codec.status, 401, afterwards.codec.body);
    assert.equal(JSON.parse(afterwards.codec.body).type, 'urn:platform:problem:unauthorized');

    // The console's refresh token from that session is refused; so is its access token.
    const refreshed = await tokenEndpoint(replica.url, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: 'platform-console',
    });
    assert.equal(refreshed.status, 400, JSON.stringify(refreshed.body));
    assert.equal(refreshed.body.error, 'invalid_grant');
    const me = await fetch(`${replica.url}/workspaces`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(me.status, 401);
  });

  it('ends only the session signed out: another session of the same person keeps working', async () => {
    const first = await consoleSignIn(platform.url);
    const second = await consoleSignIn(replica.url);
    assert.equal((await first.browser.post('/oauth/sign-out', {})).status, 200);
    const still = await withCookie(platform.url, second.cookie);
    assert.equal(still.authorize.status, 303);
    assert.equal(still.codec.status, 200, still.codec.body);
    const refreshed = await tokenEndpoint(platform.url, {
      grant_type: 'refresh_token',
      refresh_token: second.tokens.refresh_token!,
      client_id: 'platform-console',
    });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
  });

  it('a code issued through the session before its sign-out is not redeemed after it', async () => {
    const { browser } = await consoleSignIn(platform.url);
    const { verifier, challenge } = pkce();
    const issued = await browser.get(consoleAuthorize(platform.url, challenge));
    assert.equal(issued.status, 303);
    const code = new URL(issued.location!).searchParams.get('code')!;
    assert.equal((await browser.post('/oauth/sign-out', {})).status, 200);
    const redeemed = await tokenEndpoint(replica.url, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${platform.url}/console/callback`,
      client_id: 'platform-console',
      code_verifier: verifier,
    });
    assert.equal(redeemed.status, 400, JSON.stringify(redeemed.body));
    assert.equal(redeemed.body.error, 'invalid_grant');
  });

  it('is not rate-limited: with the per-address bucket exhausted by sign-in attempts, sign-out still ends the session', async () => {
    const { cookie } = await consoleSignIn(platform.url);
    // Someone behind the same address floods the sign-in form until it answers 429.
    const attacker = new Browser(limited.url);
    const login = await attacker.get('/oauth/consents');
    const fields = formFields(login.html, '/oauth/login');
    const statuses: number[] = [];
    for (let i = 0; i <= limitPerMinute; i++) {
      statuses.push((await attacker.post('/oauth/login', { ...fields, email: adminEmail, password: 'wrong password' })).status);
    }
    assert.equal(statuses.at(-1), 429, `the bucket is exhausted: ${statuses.join(', ')}`);

    // The victim's browser signs out on that replica, from the same address.
    const signedOut = await fetch(`${limited.url}/oauth/sign-out`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      redirect: 'manual',
    });
    assert.equal(signedOut.status, 200, await signedOut.text());
    assert.ok(
      signedOut.headers.getSetCookie().some((c) => c.startsWith('platform_session=;') && /max-age=0/i.test(c)),
      'the cookie is cleared',
    );
    const afterwards = await withCookie(replica.url, cookie);
    assert.equal(afterwards.authorize.status, 200, 'the session ended on the server: the sign-in page, no code');
    assert.equal(afterwards.codec.status, 401, afterwards.codec.body);
  });
});
