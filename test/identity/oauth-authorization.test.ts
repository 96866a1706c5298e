// The platform as an OAuth 2.1 authorization server for /mcp and its API: metadata, dynamic
// registration, client ID metadata documents, the sign-in and consent pages driven as a browser
// would, PKCE, resource binding, refresh rotation with reuse detection, and revocation.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort } from '../../temporal-dev/engines.js';
import { Browser, formFields, pkce, returnLink } from '../helpers/oauth-browser.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let person: { email: string; password: string; id: string };

before(async () => {
  // The metadata documents below are served on loopback, which is fetched only because it is listed here.
  platform = await startPlatform({
    SIGN_IN_LOCK_AFTER: '0',
    AUTH_RATE_LIMIT_PER_MINUTE: '0',
    MCP_OUTBOUND_ALLOW: '127.0.0.0/8',
    OAUTH_METADATA_DOCUMENT_ALLOW: '127.0.0.0/8',
  });
  const admin = await platform.admin();
  const email = `person-${randomBytes(4).toString('hex')}@example.test`;
  const password = randomBytes(12).toString('hex');
  const created = await admin.post('/users', { email, password });
  assert.equal(created.status, 201, created.text);
  person = { email, password, id: created.body.id };
});
after(() => platform.close());

const mcpResource = () => `${platform.url}/mcp`;

async function register(metadata: Record<string, unknown> = {}) {
  const res = await fetch(`${platform.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test client',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      token_endpoint_auth_method: 'none',
      ...metadata,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

function authorizeUrl(clientId: string, challenge: string, extra: Record<string, string> = {}) {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:9/callback',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-123',
    scope: 'artifact:read search:read',
    resource: mcpResource(),
    ...extra,
  });
  return `/oauth/authorize?${params}`;
}

async function token(form: Record<string, string>) {
  const res = await fetch(`${platform.url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Registers a client, signs in, allows, and redeems the code: the client's first tokens. */
async function authorize(options: { change?: Record<string, string | null>; extra?: Record<string, string>; clientId?: string } = {}) {
  const clientId = options.clientId ?? (await register()).body.client_id;
  const { verifier, challenge } = pkce();
  const browser = new Browser(platform.url);
  const login = await browser.get(authorizeUrl(clientId, challenge, options.extra));
  assert.equal(login.status, 200, login.html);
  const consent = await browser.signIn(login, person.email, person.password);
  assert.equal(consent.status, 200, consent.html);
  const back = await browser.decide(consent, 'allow', options.change);
  assert.equal(back.status, 303, back.html);
  const location = new URL(back.location!);
  assert.equal(location.searchParams.get('state'), 'st-123');
  assert.equal(location.searchParams.get('iss'), platform.url);
  const code = location.searchParams.get('code')!;
  const issued = await token({
    grant_type: 'authorization_code',
    code,
    redirect_uri: 'http://127.0.0.1:9/callback',
    client_id: clientId,
    code_verifier: verifier,
  });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  return { clientId, code, verifier, browser, tokens: issued.body };
}

async function mcpTools(accessToken: string): Promise<string[]> {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpResource()), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } }),
  );
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

async function mcpStatus(accessToken: string): Promise<number> {
  const res = await fetch(mcpResource(), {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await res.text();
  return res.status;
}

describe('authorization server metadata', () => {
  it('advertises the authorization code flow with PKCE S256, registration and metadata documents, at the URL the client used', async () => {
    const meta = (await (await fetch(`${platform.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, any>;
    // The platform is configured as localhost; the client came in on 127.0.0.1 and is told that.
    assert.match(platform.config.apiUri, /localhost/);
    assert.equal(meta.issuer, platform.url);
    assert.equal(meta.authorization_endpoint, `${platform.url}/oauth/authorize`);
    assert.equal(meta.registration_endpoint, `${platform.url}/oauth/register`);
    assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(meta.response_types_supported, ['code']);
    assert.ok(meta.grant_types_supported.includes('refresh_token'));
    assert.equal(meta.client_id_metadata_document_supported, true);
    const prm = (await (await fetch(`${platform.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, any>;
    assert.equal(prm.resource, mcpResource());
    assert.deepEqual(prm.authorization_servers, [platform.url]);
  });

  it('points an unauthenticated /mcp request at the protected resource metadata of the URL used', async () => {
    const res = await fetch(mcpResource(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 401);
    assert.match(
      res.headers.get('www-authenticate')!,
      new RegExp(`resource_metadata="${platform.url}/.well-known/oauth-protected-resource/mcp"`),
    );
  });

  it('does not advertise a host the request invents', async () => {
    // fetch will not send a Host of our choosing; node:http will.
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(`${platform.url}/.well-known/oauth-protected-resource/mcp`, { headers: { host: 'evil.example' } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c)).on('end', () => resolve(text));
      });
      req.on('error', reject).end();
    });
    assert.equal((JSON.parse(body) as { resource: string }).resource, `${platform.config.apiUri}/mcp`);
  });
});

describe('dynamic client registration', () => {
  it('registers a public client without a secret, and a confidential one with a secret shown once', async () => {
    const pub = await register();
    assert.equal(pub.status, 201);
    assert.equal(pub.body.token_endpoint_auth_method, 'none');
    assert.equal(pub.body.client_secret, undefined);
    const conf = await register({ token_endpoint_auth_method: 'client_secret_post' });
    assert.equal(conf.status, 201);
    assert.match(conf.body.client_secret, /^[0-9A-Za-z]{43}$/);
    const stored = await platform.services.db.collection('oauth_clients').findOne({ _id: conf.body.client_id });
    assert.ok(stored && !JSON.stringify(stored).includes(conf.body.client_secret), 'only a hash of the secret is kept');
  });

  it('refuses redirect URIs a browser could be abused through, and stores nothing', async () => {
    const before = await platform.services.db.collection('oauth_clients').countDocuments();
    for (const uri of ['http://example.com/cb', 'javascript:alert(1)', 'https://ok.example/cb#frag', 'data:text/html,x', 'notaurl']) {
      const reply = await register({ redirect_uris: [uri] });
      assert.equal(reply.status, 400, uri);
      assert.equal(reply.body.error, 'invalid_redirect_uri', uri);
    }
    const bad = await register({ grant_types: ['client_credentials'] });
    assert.equal(bad.body.error, 'invalid_client_metadata');
    assert.equal(await platform.services.db.collection('oauth_clients').countDocuments(), before);
  });
});

describe('authorization code flow', () => {
  it('signs a person in, asks consent, and issues tokens bound to /mcp that list the tools', async () => {
    const { tokens } = await authorize();
    assert.equal(tokens.token_type, 'Bearer');
    assert.equal(tokens.scope, 'artifact:read search:read');
    assert.ok(tokens.refresh_token);
    const names = await mcpTools(tokens.access_token);
    assert.ok(names.includes('search'));
    // Bound to /mcp: the REST API refuses it.
    const rest = await platform.api.withToken(tokens.access_token).get('/workspaces');
    assert.equal(rest.status, 401);
    assert.match(rest.body.detail, /aud/);
  });

  it('refuses at /mcp a token the platform minted for another resource', async () => {
    const other = await platform.services.tokens.issue(person.id, { kind: 'user' }, 60, 'https://elsewhere.example/mcp');
    assert.equal(await mcpStatus(other.access_token), 401);
    const mine = await platform.services.tokens.issue(person.id, { kind: 'user' }, 60, mcpResource());
    assert.equal(await mcpStatus(mine.access_token), 200);
  });

  it('refuses a resource that is not this server: a page whose link takes the error back, never an automatic redirect', async () => {
    const client = (await register()).body.client_id;
    const reply = await new Browser(platform.url).get(
      authorizeUrl(client, pkce().challenge, { resource: 'https://elsewhere.example/mcp' }),
    );
    assert.equal(reply.status, 400);
    assert.equal(reply.location, null, 'no open redirector: anyone can register a redirect URI');
    const back = returnLink(reply.html)!;
    assert.equal(back.origin + back.pathname, 'http://127.0.0.1:9/callback');
    assert.equal(back.searchParams.get('error'), 'invalid_target');
    assert.equal(back.searchParams.get('state'), 'st-123');
    assert.equal(back.searchParams.get('iss'), platform.url);
  });

  it('requires PKCE S256', async () => {
    const client = (await register()).body.client_id;
    for (const extra of [{ code_challenge_method: 'plain' }, { code_challenge: '' }] as Record<string, string>[]) {
      const reply = await new Browser(platform.url).get(authorizeUrl(client, pkce().challenge, extra));
      assert.equal(reply.status, 400);
      assert.equal(returnLink(reply.html)!.searchParams.get('error'), 'invalid_request');
      assert.match(reply.html, /PKCE is required/);
    }
  });

  it('refuses a wrong code verifier, and a code replay revokes what the code gave', async () => {
    const clientId = (await register()).body.client_id;
    const { verifier, challenge } = pkce();
    const browser = new Browser(platform.url);
    const consent = await browser.signIn(await browser.get(authorizeUrl(clientId, challenge)), person.email, person.password);
    const code = new URL((await browser.decide(consent, 'allow')).location!).searchParams.get('code')!;
    const base = { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:9/callback', client_id: clientId };
    const wrong = await token({ ...base, code_verifier: pkce().verifier });
    assert.equal(wrong.body.error, 'invalid_grant');
    // The wrong attempt used the code up: a second, correct attempt is a replay.
    const replay = await token({ ...base, code_verifier: verifier });
    assert.equal(replay.body.error, 'invalid_grant');

    const first = await authorize();
    assert.equal(await mcpStatus(first.tokens.access_token), 200);
    const again = await token({
      grant_type: 'authorization_code',
      code: first.code,
      redirect_uri: 'http://127.0.0.1:9/callback',
      client_id: first.clientId,
      code_verifier: first.verifier,
    });
    assert.equal(again.body.error, 'invalid_grant');
    assert.equal(await mcpStatus(first.tokens.access_token), 401, 'the tokens of a replayed code are revoked');
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first.tokens.refresh_token, client_id: first.clientId });
    assert.equal(refreshed.body.error, 'invalid_grant');
  });

  it('sends access_denied back to the client when the person denies', async () => {
    const clientId = (await register()).body.client_id;
    const browser = new Browser(platform.url);
    const consent = await browser.signIn(await browser.get(authorizeUrl(clientId, pkce().challenge)), person.email, person.password);
    const back = await browser.decide(consent, 'deny');
    assert.equal(back.status, 303);
    const location = new URL(back.location!);
    assert.equal(location.origin + location.pathname, 'http://127.0.0.1:9/callback');
    assert.equal(location.searchParams.get('error'), 'access_denied');
    assert.equal(location.searchParams.get('state'), 'st-123');
    assert.equal(location.searchParams.get('code'), null);
  });

  it('never redirects to a URI the client did not register, and never for an unknown client', async () => {
    const clientId = (await register()).body.client_id;
    const browser = new Browser(platform.url);
    for (const url of [
      authorizeUrl(clientId, pkce().challenge, { redirect_uri: 'https://attacker.example/cb' }),
      authorizeUrl('no-such-client', pkce().challenge),
    ]) {
      const reply = await browser.get(url);
      assert.equal(reply.status, 400);
      assert.equal(reply.location, null);
      assert.match(reply.headers.get('content-type')!, /text\/html/);
    }
  });

  it('accepts a loopback redirect URI on another port (RFC 8252)', async () => {
    const clientId = (await register()).body.client_id;
    const reply = await new Browser(platform.url).get(
      authorizeUrl(clientId, pkce().challenge, { redirect_uri: 'http://127.0.0.1:51234/callback' }),
    );
    assert.equal(reply.status, 200);
    assert.match(reply.html, /Sign in/);
  });

  it('refuses a consent decision posted without the page’s form token, and issues no code', async () => {
    const clientId = (await register()).body.client_id;
    const browser = new Browser(platform.url);
    const consent = await browser.signIn(await browser.get(authorizeUrl(clientId, pkce().challenge)), person.email, person.password);
    const forged = await browser.decide(consent, 'allow', { form_token: 'f'.repeat(64) });
    assert.equal(forged.status, 400);
    assert.equal(forged.location, null);
    // Without the session cookie (another site's form): the person is asked to sign in again.
    const elsewhere = await new Browser(platform.url).post('/oauth/consent', {
      ...formFields(consent.html, '/oauth/consent'),
      decision: 'allow',
    });
    assert.equal(elsewhere.status, 401);
    assert.equal(elsewhere.location, null);
  });

  it('shows a wrong password on the login page, and serves the pages unframeable and uncached', async () => {
    const clientId = (await register()).body.client_id;
    const browser = new Browser(platform.url);
    const login = await browser.get(authorizeUrl(clientId, pkce().challenge));
    assert.match(login.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
    assert.equal(login.headers.get('cache-control'), 'no-store');
    const again = await browser.signIn(login, person.email, 'wrong password');
    assert.equal(again.status, 401);
    assert.match(again.html, /not right/);
  });

  it('escapes what the client names itself', async () => {
    const clientId = (await register({ client_name: '<script>alert(1)</script>' })).body.client_id;
    const browser = new Browser(platform.url);
    const login = await browser.get(authorizeUrl(clientId, pkce().challenge));
    assert.ok(!login.html.includes('<script>'));
    assert.match(login.html, /&#60;script&#62;/);
  });
});

describe('refresh tokens', () => {
  it('rotates on every use; a reused refresh token revokes the whole family', async () => {
    const { clientId, tokens } = await authorize();
    const second = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.notEqual(second.body.refresh_token, tokens.refresh_token);
    assert.deepEqual(await mcpTools(second.body.access_token).then((t) => t.includes('search')), true);
    // The first refresh token comes back: someone else holds a copy.
    const reuse = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    assert.equal(reuse.body.error, 'invalid_grant');
    assert.equal(await mcpStatus(second.body.access_token), 401, 'access tokens of the family are revoked');
    const third = await token({ grant_type: 'refresh_token', refresh_token: second.body.refresh_token, client_id: clientId });
    assert.equal(third.body.error, 'invalid_grant', 'so is the newest refresh token');
  });

  it('lets at most one of many concurrent uses of a refresh token through', async () => {
    const { clientId, tokens } = await authorize();
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId })),
    );
    const ok = replies.filter((r) => r.status === 200);
    assert.ok(ok.length <= 1, `${ok.length} succeeded`);
    for (const r of ok) assert.equal(await mcpStatus(r.body.access_token), 401, 'the race is reuse: the family is revoked');
  });

  it('refuses a refresh token presented by another client', async () => {
    const { tokens } = await authorize();
    const other = (await register()).body.client_id;
    const reply = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: other });
    assert.equal(reply.body.error, 'invalid_grant');
  });

  it('revokes the family through the revocation endpoint (RFC 7009)', async () => {
    const { clientId, tokens } = await authorize();
    const res = await fetch(`${platform.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token, client_id: clientId }).toString(),
    });
    assert.equal(res.status, 200);
    assert.equal(await mcpStatus(tokens.access_token), 401);
  });
});

describe('consents', () => {
  it('lists the client’s consent, and revoking it stops its tokens at once', async () => {
    const { clientId, tokens } = await authorize();
    const own = await platform.api.login(person.email, person.password);
    const listed = await own.get('/consents');
    const entry = listed.body.items.find((c: { credential_id: string }) => c.credential_id === clientId);
    assert.deepEqual(entry.scopes, ['artifact:read', 'search:read']);
    assert.equal(entry.client_name, 'Test client');
    assert.equal((await own.delete(`/consents/oauth_client/${clientId}`)).status, 204);
    assert.equal(await mcpStatus(tokens.access_token), 401);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    assert.equal(refreshed.body.error, 'invalid_grant');
  });

  it('limits the token to the scopes and workspaces the person ticked', async () => {
    const own = await platform.api.login(person.email, person.password);
    const kept = await own.post('/workspaces', { name: 'shared with the client' });
    const hidden = await own.post('/workspaces', { name: 'not shared' });
    const { tokens } = await authorize({
      extra: { resource: platform.url, scope: 'artifact:read search:read artifact:write' },
      change: { 'scope:artifact:write': null, workspaces: 'selected', [`workspace:${kept.body.id}`]: 'on' },
    });
    assert.equal(tokens.scope, 'artifact:read search:read');
    const api = platform.api.withToken(tokens.access_token);
    const ids = (await api.get('/workspaces')).body.items.map((w: { id: string }) => w.id);
    assert.deepEqual(ids, [kept.body.id]);
    assert.equal((await api.get(`/workspaces/${hidden.body.id}`)).status, 404);
    assert.equal((await api.post('/workspaces', { name: 'x' })).status, 403);
  });
});

describe('client ID metadata documents', () => {
  it('accepts a client described by a document at its client_id URL, and refuses one that names another id', async () => {
    const port = await freePort();
    const clientId = `http://127.0.0.1:${port}/client.json`;
    const documents: Record<string, unknown> = {
      '/client.json': {
        client_id: clientId,
        client_name: 'Doc client',
        redirect_uris: ['http://127.0.0.1:9/callback'],
        token_endpoint_auth_method: 'none',
      },
      '/liar.json': { client_id: 'http://127.0.0.1:1/other.json', client_name: 'Liar', redirect_uris: ['http://127.0.0.1:9/callback'] },
    };
    const server = createServer((req, res) => {
      const doc = documents[req.url!];
      res.writeHead(doc ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(doc ?? {}));
    });
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    try {
      const { tokens } = await authorize({ clientId });
      assert.ok((await mcpTools(tokens.access_token)).includes('search'));
      const liar = await new Browser(platform.url).get(authorizeUrl(`http://127.0.0.1:${port}/liar.json`, pkce().challenge));
      assert.equal(liar.status, 400);
      assert.match(liar.html, /could not be fetched or is not valid/, 'one answer for every failure (logged with its reason)');
    } finally {
      server.close();
    }
  });
});

describe('what the review asked for', () => {
  it('refuses X-On-Behalf-Of from an OAuth client’s token: it cannot act for anyone else', async () => {
    const { tokens } = await authorize({ extra: { resource: platform.url } });
    const other = await platform.newUser();
    const reply = await platform.api.request('GET', '/workspaces', {
      headers: { authorization: `Bearer ${tokens.access_token}`, 'x-on-behalf-of': other.userId },
    });
    assert.equal(reply.status, 403, reply.text);
    assert.equal(reply.body.type, 'urn:platform:problem:on-behalf-of-refused');
  });

  it('refuses a sign-in or consent form posted from another site (login CSRF)', async () => {
    const clientId = (await register()).body.client_id;
    const browser = new Browser(platform.url);
    const login = await browser.get(authorizeUrl(clientId, pkce().challenge));
    const fields = { ...formFields(login.html, '/oauth/login'), email: person.email, password: person.password };
    for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { origin: 'https://attacker.example' }] as Record<string, string>[]) {
      const res = await fetch(`${platform.url}/oauth/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(fields).toString(),
      });
      assert.equal(res.status, 403);
      assert.equal(res.headers.getSetCookie().length, 0, 'no session was started');
    }
  });

  it('keeps a refresh token usable after a bad refresh request, and ignores offline_access', async () => {
    const { clientId, tokens } = await authorize();
    const bad = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      scope: 'artifact:write',
    });
    assert.equal(bad.body.error, 'invalid_scope');
    const good = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      scope: 'offline_access artifact:read',
      resource: `${mcpResource()}/`,
    });
    assert.equal(good.status, 200, JSON.stringify(good.body));
    assert.equal(good.body.scope, 'artifact:read', 'the access token is narrowed');
    const again = await token({ grant_type: 'refresh_token', refresh_token: good.body.refresh_token, client_id: clientId });
    assert.equal(again.body.scope, 'artifact:read search:read', 'the refresh token keeps the grant’s scope (RFC 6749 §6)');
  });

  it('revokes the family when the client revokes an access token', async () => {
    const { clientId, tokens } = await authorize();
    const res = await fetch(`${platform.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: clientId }).toString(),
    });
    assert.equal(res.status, 200);
    assert.equal(await mcpStatus(tokens.access_token), 401);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    assert.equal(refreshed.body.error, 'invalid_grant');
  });

  it('gives no refresh token to a client that did not register the grant', async () => {
    const clientId = (await register({ grant_types: ['authorization_code'] })).body.client_id;
    const { tokens } = await authorize({ clientId });
    assert.equal(tokens.refresh_token, undefined);
    assert.equal(await mcpStatus(tokens.access_token), 200);
  });

  it('asks again when the person chooses "only ticked workspaces" and ticks none', async () => {
    const clientId = (await register()).body.client_id;
    const browser = new Browser(platform.url);
    const consent = await browser.signIn(await browser.get(authorizeUrl(clientId, pkce().challenge)), person.email, person.password);
    const reply = await browser.decide(consent, 'allow', { workspaces: 'selected' });
    assert.equal(reply.status, 400);
    assert.match(reply.html, /Tick at least one workspace/);
  });

  it('refuses a state longer than 512 characters', async () => {
    const clientId = (await register()).body.client_id;
    const reply = await new Browser(platform.url).get(authorizeUrl(clientId, pkce().challenge, { state: 'x'.repeat(513) }));
    assert.equal(reply.status, 400);
    assert.equal(reply.location, null);
  });

  it('does not follow a redirect from a client ID metadata document URL', async () => {
    const port = await freePort();
    const server = createServer((req, res) => {
      if (req.url === '/moved.json') res.writeHead(302, { location: `http://127.0.0.1:${port}/doc.json` }).end();
      else
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ client_id: `http://127.0.0.1:${port}/moved.json`, redirect_uris: ['http://127.0.0.1:9/callback'] }));
    });
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    try {
      const reply = await new Browser(platform.url).get(authorizeUrl(`http://127.0.0.1:${port}/moved.json`, pkce().challenge));
      assert.equal(reply.status, 400);
      assert.match(reply.html, /could not be fetched or is not valid/);
    } finally {
      server.close();
    }
  });
});
