// The platform's own web console as a first-party OAuth client (`platform-console`): the person signs
// in on the sign-in page and is sent straight back to /console/callback (no consent: it is their own
// account), and the console's token is the person's own, which a third-party client's never is.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Browser, formFields, pkce } from '../helpers/oauth-browser.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let person: { email: string; password: string };

before(async () => {
  platform = await startPlatform({ SIGN_IN_LOCK_AFTER: '0', AUTH_RATE_LIMIT_PER_MINUTE: '0' }, { worker: false });
  person = { email: `console-${randomBytes(4).toString('hex')}@example.test`, password: randomBytes(12).toString('hex') };
  assert.equal((await (await platform.admin()).post('/users', person)).status, 201);
});
after(() => platform.close());

async function token(form: Record<string, string>) {
  const res = await fetch(`${platform.url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

function authorizeUrl(clientId: string, redirectUri: string, challenge: string) {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'console-state',
    resource: platform.url,
  });
  return `/oauth/authorize?${q}`;
}

/** The console's sign-in as the browser runs it: the page, the password, and back to the callback. */
async function consoleSignIn() {
  const callback = `${platform.url}/console/callback`;
  const { verifier, challenge } = pkce();
  const browser = new Browser(platform.url);
  const login = await browser.get(authorizeUrl('platform-console', callback, challenge));
  assert.equal(login.status, 200, login.html);
  const fields = { ...formFields(login.html, '/oauth/login'), email: person.email, password: person.password };
  const signedIn = await browser.post('/oauth/login', fields);
  assert.equal(signedIn.status, 303);
  const back = await browser.get(signedIn.location!);
  assert.equal(back.status, 303, 'no consent page for the console');
  const location = new URL(back.location!);
  assert.equal(location.origin + location.pathname, callback);
  assert.equal(location.searchParams.get('state'), 'console-state');
  const issued = await token({
    grant_type: 'authorization_code',
    code: location.searchParams.get('code')!,
    redirect_uri: callback,
    client_id: 'platform-console',
    code_verifier: verifier,
  });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  return { browser, tokens: issued.body };
}

describe('the console as a first-party client', () => {
  it('signs the person in without a consent page, and its token is the person’s own', async () => {
    const { tokens } = await consoleSignIn();
    const api = platform.api.withToken(tokens.access_token);
    const me = await api.get('/me');
    assert.equal(me.body.email, person.email);
    assert.deepEqual(me.body.actor, { kind: 'user', id: me.body.id });
    // API keys are a person's own business (access: human): the console may manage them.
    const created = await api.post('/api-keys', { name: 'from the console', scopes: ['artifact:read'] });
    assert.equal(created.status, 201, created.text);
    assert.equal((await platform.services.consents.list((await platform.services.users.findByEmail(person.email))!._id)).length, 0);
  });

  it('a third-party client’s token is not the person’s own: it may not do what only a person may', async () => {
    const registered = await fetch(`${platform.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Third party', redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' }),
    });
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const { verifier, challenge } = pkce();
    const browser = new Browser(platform.url);
    const login = await browser.get(authorizeUrl(clientId, 'http://127.0.0.1:9/cb', challenge));
    const consent = await browser.signIn(login, person.email, person.password);
    const code = new URL((await browser.decide(consent, 'allow')).location!).searchParams.get('code')!;
    const issued = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1:9/cb',
      client_id: clientId,
      code_verifier: verifier,
    });
    const api = platform.api.withToken(issued.body.access_token);
    assert.equal((await api.get('/workspaces')).status, 200, 'it reads, as allowed');
    const me = await api.get('/me');
    assert.equal(me.body.actor.kind, 'oauth_client');
    assert.equal(me.body.email, undefined, 'an e-mail only to the person’s own token');
    const refused = await api.post('/api-keys', { name: 'x', scopes: ['artifact:read'] });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.type, 'urn:platform:problem:human-required');
  });

  it('accepts only the console’s own callback on this origin as its redirect URI', async () => {
    for (const uri of ['https://evil.example/console/callback', `${platform.url}/console/other`, 'http://127.0.0.1:9/console/callback']) {
      const reply = await new Browser(platform.url).get(authorizeUrl('platform-console', uri, pkce().challenge));
      assert.equal(reply.status, 400, uri);
      assert.equal(reply.location, null, uri);
    }
  });

  it('rotates the console’s refresh token, and ends the session when it is revoked', async () => {
    const { tokens } = await consoleSignIn();
    const next = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'platform-console' });
    assert.equal(next.status, 200);
    assert.notEqual(next.body.refresh_token, tokens.refresh_token);
    await fetch(`${platform.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: next.body.refresh_token, client_id: 'platform-console' }).toString(),
    });
    assert.equal((await platform.api.withToken(next.body.access_token).get('/workspaces')).status, 401);
  });
});
