// A person signs in on the platform's login page with an external OpenID Connect provider (a real
// oidc-provider on loopback), is admitted or refused by the provider's allow-list, and goes on to the
// consent page; the client's tokens then work at /mcp.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { freePort } from '../../temporal-dev/engines.js';
import { Browser, formFields, pkce, type PageReply } from '../helpers/oauth-browser.js';
import { followAsBrowser, startOidcIdp, type OidcIdp } from '../helpers/oauth-provider.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let idp: OidcIdp;
const redirectUri = 'http://127.0.0.1:9/callback';

before(async () => {
  const port = await freePort();
  idp = await startOidcIdp();
  const client = idp.registerClient(`http://127.0.0.1:${port}/oauth/idp/corp/callback`);
  const providers = [{ name: 'corp', label: 'Corp SSO', issuer: idp.issuer, ...client, allowed_domains: ['corp.example'] }];
  platform = await startPlatform(
    {
      PORT: String(port),
      IDENTITY_PROVIDERS: JSON.stringify(providers),
      MCP_OUTBOUND_ALLOW: '127.0.0.0/8',
      AUTH_RATE_LIMIT_PER_MINUTE: '0',
    },
    { worker: false },
  );
});
after(async () => {
  await platform.close();
  await idp.close();
});

function account(email: string): string {
  const sub = `sub-${randomBytes(4).toString('hex')}`;
  idp.accounts.set(sub, { email, email_verified: true, name: email.split('@')[0] });
  return sub;
}

/** From the client's authorization request through the IdP and back: the page the person then sees. */
async function signInExternally(sub: string): Promise<{ browser: Browser; page: PageReply; verifier: string; clientId: string }> {
  const registered = await fetch(`${platform.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'SSO client', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
  });
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  const { verifier, challenge } = pkce();
  const browser = new Browser(platform.url);
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 's1',
    scope: 'search:read',
    resource: `${platform.url}/mcp`,
  });
  const login = await browser.get(`/oauth/authorize?${query}`);
  const link = /href="(\/oauth\/idp\/corp\?request=[^"]+)"/.exec(login.html)?.[1];
  assert.ok(link, `the login page offers the provider: ${login.status} ${login.html}`);
  assert.match(login.html, /Sign in with Corp SSO/);
  const toIdp = await browser.get(link);
  assert.equal(toIdp.status, 303);
  assert.ok(toIdp.location!.startsWith(idp.issuer), toIdp.location!);
  idp.person = { decision: 'approve', account: sub };
  const atCallback = (url: URL) => url.pathname === '/oauth/idp/corp/callback';
  const { url } = await followAsBrowser(toIdp.location!, { stopAt: atCallback });
  assert.ok(atCallback(url), url.href);
  const page = await browser.follow(await browser.get(url.pathname + url.search));
  return { browser, page, verifier, clientId };
}

/** The person allows on the consent page; the client redeems the code. */
async function allowAndRedeem(browser: Browser, page: PageReply, clientId: string, verifier: string) {
  const code = new URL((await browser.decide(page, 'allow')).location!).searchParams.get('code')!;
  const res = await fetch(`${platform.url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
    }),
  });
  return { res, tokens: (await res.json()) as { access_token: string; scope: string } };
}

describe('sign-in with an external OpenID Connect provider', () => {
  it('admits an address of an allowed domain, creates the account on first sign-in, and goes on to consent', async () => {
    const email = `ada-${randomBytes(3).toString('hex')}@corp.example`;
    const { browser, page, verifier, clientId } = await signInExternally(account(email));
    assert.equal(page.status, 200, page.html);
    assert.ok(page.html.includes(`Signed in as <strong>${email}</strong>`), page.html);
    const user = await platform.services.users.findByEmail(email);
    assert.ok(user, 'the first sign-in created the account');
    const { res, tokens } = await allowAndRedeem(browser, page, clientId, verifier);
    assert.equal(res.status, 200, JSON.stringify(tokens));
    const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${platform.url}/.well-known/jwks.json`)));
    assert.equal(payload.sub, user._id, 'the token is the external person’s');

    // A second sign-in with the same identity is the same person.
    const again = await signInExternally([...idp.accounts].find(([, a]) => a.email === email)![0]);
    assert.equal(again.page.status, 200);
    assert.equal(await platform.services.db.collection('users').countDocuments({ email }), 1);
  });

  it('refuses an address outside the allow-list on the login page, and creates no account', async () => {
    const email = `mallory-${randomBytes(3).toString('hex')}@elsewhere.example`;
    const { page } = await signInExternally(account(email));
    assert.equal(page.status, 403);
    assert.match(page.html, /not allowed to sign in here/);
    assert.match(page.html, /action="\/oauth\/login"/, 'the login page again, to try another way');
    assert.equal(await platform.services.users.findByEmail(email), null);
  });

  it('refuses a callback that arrives without the pending sign-in cookie', async () => {
    const reply = await new Browser(platform.url).get('/oauth/idp/corp/callback?code=x&state=y');
    assert.equal(reply.status, 400);
    assert.match(reply.html, /Start again from your application/);
  });

  it('lets a person who signed in externally (no password) see and revoke what they allowed', async () => {
    const email = `grace-${randomBytes(3).toString('hex')}@corp.example`;
    const sub = account(email);
    const { browser, page, verifier, clientId } = await signInExternally(sub);
    const { access_token } = (await allowAndRedeem(browser, page, clientId, verifier)).tokens;
    const mcpStatus = async () =>
      (
        await fetch(`${platform.url}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${access_token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        })
      ).status;
    assert.equal(await mcpStatus(), 200);

    // A new browser: the authorizations page asks to sign in, offering the provider.
    const fresh = new Browser(platform.url);
    const login = await fresh.get('/oauth/consents');
    const link = /href="(\/oauth\/idp\/corp\?next=consents)"/.exec(login.html)?.[1];
    assert.ok(link, login.html);
    const toIdp = await fresh.get(link);
    idp.person = { decision: 'approve', account: sub };
    const { url } = await followAsBrowser(toIdp.location!, { stopAt: (u) => u.pathname === '/oauth/idp/corp/callback' });
    const listed = await fresh.follow(await fresh.get(url.pathname + url.search));
    assert.equal(listed.status, 200, listed.html);
    assert.match(listed.html, /SSO client/);
    const revoke = formFields(listed.html, '/oauth/consents/revoke');
    assert.equal(revoke.credential_id, clientId);
    const done = await fresh.post('/oauth/consents/revoke', revoke);
    assert.equal(done.status, 303);
    assert.equal(await mcpStatus(), 401, 'the client’s token stops at once');
    assert.doesNotMatch((await fresh.get('/oauth/consents')).html, /SSO client/);
    // A forged revoke (no form token) changes nothing and says why.
    const forged = await fresh.post('/oauth/consents/revoke', { ...revoke, form_token: 'x' });
    assert.equal(forged.status, 400);
  });
});
