// A person's connection is pinned to the authorizer as it was when they consented (review2 A1 of
// #35). An authorizer is an artifact any editor of its workspace may change: one who strips its
// resource binding and moves the server, or points its token_url at their own host, must get neither
// the person's access token nor their refresh token. The connection then needs the person's consent
// again, and works once they give it for the new configuration. The authorization server is
// oidc-provider, the MCP servers are the MCP SDK's, the trap a plain listener; all on loopback.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../temporal-dev/engines.js';
import { Api, eventually } from '../helpers/http.js';
import { followAsBrowser, startOAuthServer, type OAuthServer } from '../helpers/oauth-provider.js';
import { registerServer } from '../helpers/mcp-servers.js';
import { startProtectedMcp, type ProtectedMcp } from '../helpers/protected-mcp.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let oauth: OAuthServer;
let notes: ProtectedMcp; // the server the owner consented for
let elsewhere: ProtectedMcp; // the editor's host
let gateway: ProtectedMcp; // one host whose discovery document may name another tenant's path
let trap: { url: string; seen: string[]; close(): Promise<void> }; // a token endpoint of the editor's
let owner: Api & { userId: string };
let editor: Api & { userId: string };
let ws: string;

/** A plain listener that records every request (method, path, body) and answers 400. */
async function startTrap() {
  const port = await freePort();
  const seen: string[] = [];
  const http: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${body}`);
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_grant' }));
    });
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}/token`, seen, close: () => new Promise<void>((r) => http.close(() => r())) };
}

async function connect(who: Api, server: string, account: string) {
  const answer = await who.post(`/artifacts/${server}/op/connect`, {});
  assert.equal(answer.status, 200, answer.text);
  oauth.person = { decision: 'approve', account };
  const page = await followAsBrowser(answer.body.connection.authorization_url);
  assert.equal(page.status, 200, page.text);
  assert.match(page.text, /data-outcome="connected"/);
  return answer.body as { authorizer_id: string; discovered: boolean };
}

const whoami = async (who: Api, server: string) => {
  const called = await who.post(`/artifacts/${server}/invoke`, { name: 'whoami', arguments: {} });
  assert.equal(called.status, 200, called.text);
  return called.body.result;
};

const connectionOf = async (who: Api, authorizerId: string) => {
  const listed = await who.get(`/connections?authorizer_id=${authorizerId}`);
  assert.equal(listed.status, 200, listed.text);
  assert.equal(listed.body.items.length, 1);
  return listed.body.items[0];
};

const authorizerOf = async (id: string) => {
  const got = await owner.get(`/artifacts/${id}`);
  assert.equal(got.status, 200, got.text);
  return { content: JSON.parse(got.body.content), context: got.body.context };
};

/** The editor's PATCH of an artifact's content (a secret_id they do not own must go: it is refused otherwise). */
async function edit(who: Api, id: string, body: Record<string, unknown>) {
  const patched = await who.patch(`/artifacts/${id}`, body);
  assert.equal(patched.status, 200, patched.text);
}

before(async () => {
  oauth = await startOAuthServer();
  notes = await startProtectedMcp(oauth, { discovery: 'challenge' });
  elsewhere = await startProtectedMcp(oauth, { discovery: 'challenge' });
  gateway = await startProtectedMcp(oauth, { discovery: 'challenge' });
  trap = await startTrap();
  platform = await startPlatform({ MCP_OUTBOUND_ALLOW: '127.0.0.0/8' }, { worker: true });
  owner = await platform.newUser();
  ws = (await owner.post('/workspaces', { name: 'pinned' })).body.id;
  editor = await platform.newUser();
  assert.equal((await owner.post(`/workspaces/${ws}/shares`, { person_id: editor.userId, flags: 'CRUDI' })).status, 200);
});
after(async () => {
  await platform?.close();
  await Promise.all([oauth?.close(), notes?.close(), elsewhere?.close(), gateway?.close(), trap?.close()]);
});

describe('a connection is pinned to the authorizer its person consented to', () => {
  it("an editor strips the authorizer's binding and moves the server: the owner's token stays home, and the owner connects again for the new server", async () => {
    const serverId = await registerServer(owner, ws, { transport: { type: 'http', url: notes.url } }, 'Notes');
    const { authorizer_id: authorizerId, discovered } = await connect(owner, serverId, 'olivia');
    assert.equal(discovered, true);
    assert.deepEqual((await whoami(owner, serverId)).structuredContent, { sub: 'olivia' });
    const original = await authorizerOf(authorizerId);

    // The editor: no context, no resource in auth_url (and no secret_id, which is not theirs), then the server on their host.
    const { secret_id: _secret, ...rest } = original.content;
    const authUrl = new URL(rest.auth_url);
    authUrl.searchParams.delete('resource');
    await edit(editor, authorizerId, { context: {}, content: JSON.stringify({ ...rest, auth_url: authUrl.href }) });
    const moved = { transport: { type: 'http', url: elsewhere.url }, auth: { type: 'oauth2', authorizer_id: authorizerId } };
    await edit(editor, serverId, { content: JSON.stringify(moved) });

    const seen = elsewhere.seen.length;
    const called = await whoami(owner, serverId);
    assert.equal(called.isError, true, JSON.stringify(called));
    assert.match(called.structuredContent.message, /needs new consent: authorizer .* changed since you connected/);
    assert.match(called.structuredContent.message, /resource/);
    assert.deepEqual(
      elsewhere.seen.slice(seen).filter((h) => h !== ''),
      [],
      "the editor's host saw no Authorization header",
    );
    const connection = await connectionOf(owner, authorizerId);
    assert.equal(connection.status, 'needs_reconsent');
    assert.equal(connection.error.code, 'authorizer_changed');
    assert.equal(connection.has_refresh_token, false, 'its tokens are dropped');

    // The owner makes the new configuration hers (her client secret, the new server as the resource) and consents to it.
    const rebound = new URL(original.content.auth_url);
    rebound.searchParams.set('resource', elsewhere.url);
    await edit(owner, authorizerId, {
      content: JSON.stringify({ ...original.content, auth_url: rebound.href }),
      context: { discovered: { ...original.context.discovered, resource: elsewhere.url } },
    });
    await connect(owner, serverId, 'olivia');
    const accepted = elsewhere.rejected;
    assert.deepEqual((await whoami(owner, serverId)).structuredContent, { sub: 'olivia' });
    assert.equal(elsewhere.rejected, accepted, 'a token issued for the new server');
    assert.equal((await connectionOf(owner, authorizerId)).status, 'active');
  });

  it('an editor points token_url at their host: the refresh token is never sent there, and the connection needs new consent', async () => {
    const serverId = await registerServer(owner, ws, { transport: { type: 'http', url: notes.url } }, 'Notes, short tokens');
    oauth.lifetimes.set('pat', 3);
    const { authorizer_id: authorizerId } = await connect(owner, serverId, 'pat');
    const { content } = await authorizerOf(authorizerId);
    const { secret_id: _secret, ...rest } = content;
    await edit(editor, authorizerId, { content: JSON.stringify({ ...rest, token_url: trap.url }) });

    // The workflow's timer comes to refresh the 3-second token by itself: no call is needed.
    await eventually(async () => (await connectionOf(owner, authorizerId)).status === 'needs_reconsent', 30_000, 'needs_reconsent');
    const connection = await connectionOf(owner, authorizerId);
    assert.equal(connection.error.code, 'authorizer_changed');
    assert.match(connection.error.detail, /token_url/);
    assert.deepEqual(trap.seen, [], 'the trap received no request at all');

    const called = await whoami(owner, serverId);
    assert.equal(called.isError, true);
    assert.match(called.structuredContent.message, /needs new consent/);
    // A new consent while token_url is the trap's goes nowhere near the owner's old refresh token.
    assert.ok(trap.seen.every((r) => !/refresh_token/.test(r)));
  });
});

describe('an authorizer changed while its person signs in', () => {
  it('the authorization code is not sent to the changed token_url', async () => {
    const serverId = await registerServer(owner, ws, { transport: { type: 'http', url: notes.url } }, 'Notes, edited mid-sign-in');
    const { authorizer_id: authorizerId } = await connect(owner, serverId, 'olivia');
    // A second person starts signing in; meanwhile the editor moves token_url to their host.
    const bob = await platform.newUser();
    assert.equal((await owner.post(`/workspaces/${ws}/shares`, { person_id: bob.userId, flags: 'RI' })).status, 200);
    const started = await bob.post(`/artifacts/${serverId}/op/connect`, {});
    assert.equal(started.status, 200, started.text);
    const { secret_id: _secret, ...rest } = (await authorizerOf(authorizerId)).content;
    await edit(editor, authorizerId, { content: JSON.stringify({ ...rest, token_url: trap.url }) });
    const before = trap.seen.length;
    oauth.person = { decision: 'approve', account: 'bob' };
    const page = await followAsBrowser(started.body.connection.authorization_url);
    assert.doesNotMatch(page.text, /data-outcome="connected"/);
    await eventually(
      async () => (await connectionOf(bob, authorizerId)).error?.code === 'authorizer_changed',
      30_000,
      'authorizer_changed',
    );
    assert.deepEqual(trap.seen.slice(before), [], 'the trap received no authorization code');
  });
});

describe('a server registered by its discovery document (review2 B1)', () => {
  it('sends the token only to an endpoint the resource identifies, path included', async () => {
    const wellKnown = new URL('/.well-known/mcp.json', gateway.url).href;
    const serverId = await registerServer(owner, ws, { transport: { type: 'http', well_known: wellKnown } }, 'Gateway tenant A');
    const { authorizer_id: authorizerId } = await connect(owner, serverId, 'olivia');
    assert.equal((await authorizerOf(authorizerId)).context.discovered.resource, gateway.url);
    assert.deepEqual((await whoami(owner, serverId)).structuredContent, { sub: 'olivia' });

    // The same host's document now names another tenant's path; a server registered by it borrows the sign-in.
    gateway.documentEndpoint = '/tenant-b/mcp';
    const borrowed = await registerServer(
      editor,
      ws,
      { transport: { type: 'http', well_known: wellKnown }, auth: { type: 'oauth2', authorizer_id: authorizerId } },
      'Gateway tenant B',
    );
    const seen = gateway.seen.length;
    const called = await whoami(owner, borrowed);
    assert.equal(called.isError, true, JSON.stringify(called));
    assert.match(JSON.stringify(called), /does not identify; no token is sent there/);
    assert.deepEqual(
      gateway.seen.slice(seen).filter((h) => h !== ''),
      [],
      'no Authorization header reached the other path',
    );
  });
});
