// Outbound OAuth by discovery (issue #35): an MCP server protected by MCP authorization is registered
// by its URL alone; connecting to it discovers its protected resource metadata (RFC 9728) and its
// authorization server's (RFC 8414), registers the platform there (RFC 7591), makes the authorizer
// (PKCE, the resource indicator of RFC 8707, the challenge's scopes) and sends each person through the
// server's own sign-in once. The authorization server is oidc-provider (a certified implementation) and
// the MCP server takes only tokens issued for it; both run on loopback.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Api, eventually } from '../helpers/http.js';
import { apiProcess, type ApiProcess } from '../helpers/api-process.js';
import { asServer, createServerCredential, type ServerCredential } from '../helpers/credentials.js';
import { followAsBrowser, startOAuthServer, type OAuthServer } from '../helpers/oauth-provider.js';
import { registerServer } from '../helpers/mcp-servers.js';
import { startProtectedMcp, type ProtectedMcp } from '../helpers/protected-mcp.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let oauth: OAuthServer;
let notes: ProtectedMcp; // names its metadata in its 401 challenge
let quiet: ProtectedMcp; // publishes its metadata only at the well-known URL
let legacy: ProtectedMcp; // a 401 without MCP authorization metadata
let impostor: ProtectedMcp; // its metadata names another server as the resource
let elsewhere: ProtectedMcp; // another host that would like the tokens meant for `notes`
let owner: Api & { userId: string };
let ws: string;
let serverId: string;
let authorizerId: string;

type Person = Api & { userId: string };

async function person(flags = 'RI'): Promise<Person> {
  const p = await platform.newUser();
  assert.equal((await owner.post(`/workspaces/${ws}/shares`, { person_id: p.userId, flags })).status, 200);
  return p;
}

/** The person connects to the server and signs in at its authorization server as `account`. */
async function connect(who: Api, server: string, account: string, body: Record<string, unknown> = {}) {
  const answer = await who.post(`/artifacts/${server}/op/connect`, body);
  assert.equal(answer.status, 200, answer.text);
  oauth.person = { decision: 'approve', account };
  const page = await followAsBrowser(answer.body.connection.authorization_url);
  assert.equal(page.status, 200, page.text);
  assert.match(page.text, /data-outcome="connected"/);
  return answer.body;
}

const whoami = async (who: Api, server = serverId) => {
  const called = await who.post(`/artifacts/${server}/invoke`, { name: 'whoami', arguments: {} });
  assert.equal(called.status, 200, called.text);
  return called.body.result;
};

const connectionOf = async (who: Api) => {
  const listed = await who.get(`/connections?authorizer_id=${authorizerId}`);
  assert.equal(listed.status, 200, listed.text);
  assert.equal(listed.body.items.length, 1);
  return listed.body.items[0];
};

const expireSoon = (connectionId: string) =>
  platform.services.db
    .collection('connections')
    .updateOne({ _id: connectionId } as never, { $set: { expires_at: new Date(Date.now() + 1000) } });

before(async () => {
  oauth = await startOAuthServer();
  notes = await startProtectedMcp(oauth, { discovery: 'challenge' });
  quiet = await startProtectedMcp(oauth, { discovery: 'well-known', scope: 'notes:write' });
  legacy = await startProtectedMcp(oauth);
  impostor = await startProtectedMcp(oauth, { discovery: 'challenge', claims: notes.url });
  elsewhere = await startProtectedMcp(oauth, { discovery: 'challenge' });
  platform = await startPlatform({ MCP_OUTBOUND_ALLOW: '127.0.0.0/8' }, { worker: true });
  owner = await platform.newUser();
  ws = (await owner.post('/workspaces', { name: 'discovered' })).body.id;
  serverId = await registerServer(owner, ws, { transport: { type: 'http', url: notes.url } }, 'Notes');
});
after(async () => {
  await platform?.close();
  await Promise.all([oauth?.close(), notes?.close(), quiet?.close(), legacy?.close(), impostor?.close(), elsewhere?.close()]);
});

describe('discovering a protected server', () => {
  it('registers by URL; the first connect discovers the authorization, makes the authorizer and signs the person in', async () => {
    const refused = await whoami(owner);
    assert.equal(refused.isError, true, 'without auth the server refuses the platform');
    // The 401's Bearer challenge is read as MCP authorization: the person is told how to connect.
    assert.equal(refused.structuredContent.status, 401);
    assert.equal(
      refused.structuredContent.message,
      `MCP server ${serverId} asks for authorization: each person connects with POST /artifacts/${serverId}/op/connect.`,
    );

    const connected = await connect(owner, serverId, 'olivia');
    assert.equal(connected.discovered, true);
    authorizerId = connected.authorizer_id;
    const url = new URL(connected.connection.authorization_url);
    assert.equal(url.origin, oauth.issuer);
    assert.equal(url.searchParams.get('resource'), notes.url, 'the resource indicator names the server (RFC 8707)');
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.deepEqual(url.searchParams.get('scope')!.split(' ').sort(), ['notes:read', 'offline_access']);

    // The authorizer is what a person would have written by hand, in the server's workspace.
    const authorizer = await owner.get(`/artifacts/${authorizerId}`);
    assert.equal(authorizer.status, 200, authorizer.text);
    assert.equal(authorizer.body.collection_id, ws);
    const content = JSON.parse(authorizer.body.content);
    assert.equal(content.provider, oauth.issuer);
    assert.equal(content.token_url, oauth.tokenUrl);
    assert.equal(content.pkce, true);
    assert.ok(content.secret_id, 'a confidential client: its secret is held as a secret of the person');
    const registered = oauth.dynamicClients().find((c) => c.client_id === content.client_id);
    assert.ok(registered, 'the platform registered itself at the authorization server (RFC 7591)');
    assert.deepEqual(registered.redirect_uris, [connected.connection.redirect_uri]);
    assert.equal(registered.token_endpoint_auth_method, 'client_secret_basic');

    const server = JSON.parse((await owner.get(`/artifacts/${serverId}`)).body.content);
    assert.deepEqual(server.auth, { type: 'oauth2', authorizer_id: authorizerId });

    const rejected = notes.rejected;
    assert.deepEqual((await whoami(owner)).structuredContent, { sub: 'olivia' });
    assert.equal(notes.rejected, rejected, 'the token was issued for this server, with its scope');
  });

  it('a second person is not carried by the first: they sign in once themselves', async () => {
    const bob = await person();
    const before = await whoami(bob);
    assert.equal(before.isError, true);
    assert.match(JSON.stringify(before.content), /no connection to authorizer/);

    const connected = await connect(bob, serverId, 'bob');
    assert.equal(connected.discovered, false);
    assert.equal(connected.authorizer_id, authorizerId);
    assert.deepEqual((await whoami(bob)).structuredContent, { sub: 'bob' });
    assert.deepEqual((await whoami(owner)).structuredContent, { sub: 'olivia' }, 'each call carries its own person’s token');
    assert.equal(oauth.dynamicClients().length, 1, 'one client registration for the server, not one per person');
  });

  it('refreshes an expired token with the resource indicator, and the server takes the new one', async () => {
    const carol = await person();
    oauth.lifetimes.set('carol', 3);
    await connect(carol, serverId, 'carol');
    const first = await connectionOf(carol);
    // The workflow's timer refreshes before expiry; the new token is again for this server only.
    await eventually(async () => (await connectionOf(carol)).refresh_count >= 2, 30_000, 'two refreshes');
    assert.deepEqual((await whoami(carol)).structuredContent, { sub: 'carol' });
    // Back to hour-long tokens (at the next timed refresh); then one the record says is expiring is
    // refreshed inside the call, before it is used.
    oauth.lifetimes.delete('carol');
    const timed = (await connectionOf(carol)).refresh_count;
    await eventually(async () => (await connectionOf(carol)).refresh_count > timed, 30_000, 'a refresh to an hour-long token');
    const count = (await connectionOf(carol)).refresh_count;
    await expireSoon(first.id);
    assert.deepEqual((await whoami(carol)).structuredContent, { sub: 'carol' });
    assert.equal((await connectionOf(carol)).refresh_count, count + 1);
  });

  it('finds the metadata at the well-known URL when the challenge does not name it, for a server registered by its discovery document', async () => {
    // Registered by its discovery document (SPEC §2.9), not its endpoint.
    const wellKnown = new URL('/.well-known/mcp.json', quiet.url).href;
    const quietId = await registerServer(owner, ws, { transport: { type: 'http', well_known: wellKnown } }, 'Quiet notes');
    const connected = await connect(owner, quietId, 'olivia');
    assert.equal(connected.discovered, true);
    assert.notEqual(connected.authorizer_id, authorizerId);
    const url = new URL(connected.connection.authorization_url);
    assert.equal(url.searchParams.get('resource'), quiet.url);
    assert.deepEqual(url.searchParams.get('scope')!.split(' ').sort(), ['notes:write', 'offline_access']);
    assert.deepEqual((await whoami(owner, quietId)).structuredContent, { sub: 'olivia' });
  });

  it('two first connects at once make one authorizer: the later one yields to the first', async () => {
    const editor = await person('CRUDI');
    const id = await registerServer(owner, ws, { transport: { type: 'http', url: notes.url } }, 'Notes again');
    const answers = await Promise.all([owner.post(`/artifacts/${id}/op/connect`, {}), editor.post(`/artifacts/${id}/op/connect`, {})]);
    for (const a of answers) assert.equal(a.status, 200, a.text);
    assert.equal(answers[0]!.body.authorizer_id, answers[1]!.body.authorizer_id);
    const made = await platform.services.db
      .collection('artifacts')
      .find({ 'context.discovered.server_id': id } as never)
      .toArray();
    assert.deepEqual(
      made.map((d) => d._id),
      [answers[0]!.body.authorizer_id],
      'the loser deleted the authorizer it made',
    );
    const held = JSON.parse(made[0]!.content as string).secret_id;
    const secrets = [...(await owner.get('/secrets')).body.items, ...(await editor.get('/secrets')).body.items];
    assert.deepEqual(
      secrets.filter((x: { name: string }) => x.name.includes('Notes again')).map((x: { id: string }) => x.id),
      [held],
      'and its client secret',
    );
  });

  it('refuses what it cannot discover, and leaves the server as it was', async () => {
    const legacyId = await registerServer(owner, ws, { transport: { type: 'http', url: legacy.url } }, 'Legacy');
    const answer = await owner.post(`/artifacts/${legacyId}/op/connect`, {});
    assert.equal(answer.status, 409, answer.text);
    assert.equal(answer.body.type, 'urn:platform:problem:server-not-protected');
    assert.match(answer.body.detail, /authorizer by hand/);
    assert.equal(JSON.parse((await owner.get(`/artifacts/${legacyId}`)).body.content).auth, undefined);

    const impostorId = await registerServer(owner, ws, { transport: { type: 'http', url: impostor.url } }, 'Impostor');
    const misled = await owner.post(`/artifacts/${impostorId}/op/connect`, {});
    assert.equal(misled.status, 502, misled.text);
    assert.equal(misled.body.type, 'urn:platform:problem:authorization-discovery-failed');
    assert.equal(misled.body.reason, 'metadata-unusable');
    assert.match(misled.body.detail, /not the server registered/);
    assert.equal(JSON.parse((await owner.get(`/artifacts/${impostorId}`)).body.content).auth, undefined);

    const reader = await person('R');
    assert.equal((await reader.post(`/artifacts/${serverId}/op/connect`, {})).status, 403, 'connecting needs the invoke grant');
    const newcomer = await person('RI');
    const unprotected = await registerServer(owner, ws, { transport: { type: 'http', url: `${platform.url}/health` } }, 'Open');
    assert.equal((await newcomer.post(`/artifacts/${unprotected}/op/connect`, {})).status, 403, 'discovery writes: it needs C and U');
  });
});

describe('a discovered authorizer is bound to its resource', () => {
  const refusedWithoutToken = async (server: string) => {
    const seen = elsewhere.seen.length;
    const called = await whoami(owner, server);
    assert.equal(called.isError, true, JSON.stringify(called));
    assert.match(called.structuredContent.message, /no token is sent there/);
    assert.match(called.structuredContent.message, new RegExp(`gets tokens for ${notes.url.replace(/[.]/g, '\\.')} only`));
    assert.deepEqual(
      elsewhere.seen.slice(seen).filter((h) => h !== ''),
      [],
      'the other host saw no Authorization header',
    );
  };

  it('a server whose URL is changed to another host no longer gets the token', async () => {
    const id = await registerServer(owner, ws, { transport: { type: 'http', url: notes.url } }, 'Notes to be moved');
    const connected = await connect(owner, id, 'olivia');
    assert.equal(connected.discovered, true);
    assert.deepEqual((await whoami(owner, id)).structuredContent, { sub: 'olivia' });
    const authorizer = await owner.get(`/artifacts/${connected.authorizer_id}`);
    assert.equal(authorizer.body.context.discovered.resource, notes.url);

    const moved = { transport: { type: 'http', url: elsewhere.url }, auth: { type: 'oauth2', authorizer_id: connected.authorizer_id } };
    const edited = await owner.patch(`/artifacts/${id}`, { content: JSON.stringify(moved) });
    assert.equal(edited.status, 200, edited.text);
    await refusedWithoutToken(id);
  });

  it('another server pointed at the discovered authorizer does not get the token', async () => {
    const editor = await person('CRUDI');
    const id = await registerServer(
      editor,
      ws,
      { transport: { type: 'http', url: elsewhere.url }, auth: { type: 'oauth2', authorizer_id: authorizerId } },
      'Borrowed sign-in',
    );
    await refusedWithoutToken(id);
    // The server the authorizer was made for is still called with the token.
    assert.deepEqual((await whoami(owner)).structuredContent, { sub: 'olivia' });
  });
});

describe('refresh across replicas', () => {
  let replicas: ApiProcess[] = [];
  after(async () => Promise.all(replicas.map((r) => r.stop())));

  it('two API processes projecting an expiring token at once make one refresh', async () => {
    replicas = await Promise.all([apiProcess(platform), apiProcess(platform)]);
    const cred: ServerCredential = await createServerCredential(owner, ['artifact:read', 'artifact:invoke']);
    const dave = await person();
    assert.equal((await dave.post('/consents', { credential_kind: 'server_credential', credential_id: cred.client_id })).status, 201);
    await connect(dave, serverId, 'dave', { server_client_ids: [cred.client_id] });
    const conn = await connectionOf(dave);
    for (let round = 0; round < 3; round++) {
      const before = (await connectionOf(dave)).refresh_count;
      await expireSoon(conn.id);
      const servers = await Promise.all(replicas.map((r) => asServer(r.url, cred)));
      const projected = await Promise.all(
        servers.map((s) => s.request('POST', `/connections/${conn.id}/project`, { headers: { 'x-on-behalf-of': dave.userId } })),
      );
      for (const p of projected) assert.equal(p.status, 200, p.text);
      assert.equal(projected[0]!.body.headers.Authorization, projected[1]!.body.headers.Authorization, 'both got the one new token');
      assert.equal((await connectionOf(dave)).refresh_count, before + 1, 'one refresh, not one per replica');
    }
    assert.deepEqual((await whoami(dave)).structuredContent, { sub: 'dave' });
  });
});

it('no token and no client secret appears in the logs', async () => {
  const { access, refresh } = oauth.issuedTokens();
  const secrets = oauth.dynamicClients().flatMap((c) => (c.client_secret ? [c.client_secret] : []));
  assert.ok(access.length > 5 && secrets.length > 0, 'the tests issued tokens and registered a confidential client');
  const logs = platform.logs.join('\n');
  for (const value of [...access, ...refresh, ...secrets]) assert.ok(!logs.includes(value), 'a token or client secret appears in the logs');
});
