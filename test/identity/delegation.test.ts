// Delegation tokens end to end (SPEC §5.7): a person signed in through the console calls a tool of a
// first-party server (one whose registration's writer holds an active server credential naming it);
// the server, a real MCP server over Streamable HTTP, receives an RFC 8693 JWT in the call's
// `params._meta["platform/delegation"]`, which it verifies against the platform's JWKS with the SDK.
// The caller never sees it, Temporal never stores it, and the platform refuses it as an access token.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { verifyDelegation } from '../../src/platform-sdk/delegation.js';
import { consoleClientId, consoleToken } from '../helpers/console-token.js';
import { Api } from '../helpers/http.js';
import { startMetaEchoMcp, type MetaEchoMcp } from '../helpers/meta-echo-mcp.js';
import { registerServer } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { openedHistory } from '../helpers/history.js';

const metaKey = 'platform/delegation';

let platform: TestPlatform;
let echo: MetaEchoMcp;
let person: { email: string; password: string; id: string };
let plain: Api; // the person's password sign-in token (kind `user`)
let viaConsole: Api; // the person's console token (kind `console`)
let workspace: string;

before(async () => {
  platform = await startPlatform({ SIGN_IN_LOCK_AFTER: '0', AUTH_RATE_LIMIT_PER_MINUTE: '0', MCP_OUTBOUND_ALLOW: '127.0.0.0/8' });
  echo = await startMetaEchoMcp();
  const credentials = { email: `delegate-${randomBytes(4).toString('hex')}@example.test`, password: randomBytes(12).toString('hex') };
  const created = await (await platform.admin()).post('/users', credentials);
  assert.equal(created.status, 201, created.text);
  person = { ...credentials, id: created.body.id };
  plain = await platform.api.login(person.email, person.password);
  viaConsole = platform.api.withToken(await consoleToken(platform.url, credentials));
  const ws = await plain.post('/workspaces', { name: 'Delegation' });
  assert.equal(ws.status, 201, ws.text);
  workspace = ws.body.id;
});
after(async () => {
  await platform?.close();
  await echo?.close();
});

async function credentialFor(owner: Api, serverId: string, scopes: string[]): Promise<string> {
  const reply = await owner.post('/server-credentials', {
    client_id: `viewer-${randomBytes(3).toString('hex')}`,
    name: 'first-party server',
    server_id: serverId,
    host_id: 'test-host',
    scopes,
  });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.client_id;
}

/** Calls echo_meta as `api` and returns the answer and the `_meta` the server received for it. */
async function call(api: Api, serverId: string) {
  const before = echo.received.length;
  const reply = await api.post(`/artifacts/${serverId}/invoke`, { name: 'echo_meta', arguments: {}, wait_seconds: 60 });
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.body.result.isError, undefined, reply.text);
  assert.equal(echo.received.length, before + 1);
  return { reply, meta: echo.received[before]! };
}

/** Every byte payload in a workflow history, as text (protobuf messages' own JSON would give base64). */
function payloadText(value: unknown, seen = new Set<unknown>()): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (!value || typeof value !== 'object' || seen.has(value)) return typeof value === 'string' ? value : '';
  seen.add(value);
  return Object.values(value)
    .map((v) => payloadText(v, seen))
    .join('\n');
}

const verify = (token: unknown, clientId: string) =>
  verifyDelegation(token, { jwksUrl: `${platform.url}/.well-known/jwks.json`, issuer: platform.config.apiUri, clientId });

describe('delegation tokens toward first-party servers', () => {
  let serverId: string;
  let clientId: string;
  let token: string;

  before(async () => {
    serverId = await registerServer(plain, workspace, { transport: { type: 'http', url: echo.url } }, 'meta echo');
    clientId = await credentialFor(plain, serverId, ['artifact:read', 'artifact:invoke', 'artifact:manage', 'stream:ingest']);
  });

  it('gives the server a JWT for its client id, about the person, verifiable against the JWKS; the caller never sees it', async () => {
    const { reply, meta } = await call(viaConsole, serverId);
    assert.deepEqual(Object.keys(meta), [metaKey]);
    token = meta[metaKey] as string;
    const claims = await verify(token, clientId);
    assert.equal(claims.sub, person.id);
    assert.equal(claims.aud, clientId);
    assert.equal(claims.iss, platform.config.apiUri);
    assert.equal(claims.workspace_id, workspace);
    assert.equal(claims.act.sub, consoleClientId);
    assert.match(claims.act.sid!, /^[A-Za-z0-9_-]{22}$/);
    // The person's (all) ∩ the viewer's (no manage, no streams) ∩ the credential's.
    assert.deepEqual(claims.scope.split(' ').sort(), ['artifact:invoke', 'artifact:read']);
    assert.ok(claims.exp - claims.iat <= 300);
    await assert.rejects(verify(token, `${clientId}x`), /another audience/);

    // The server echoed it back: the answer carries it scrubbed, and neither the invocation nor Temporal's history holds it.
    assert.ok(!reply.text.includes(token), 'the invoke answer never carries the token');
    assert.ok(reply.text.includes('[redacted]'), reply.text);
    const polled = await viaConsole.get(reply.body.poll);
    assert.equal(polled.status, 200, polled.text);
    assert.ok(!polled.text.includes(token));
    const history = await openedHistory(platform, reply.body.workflow_id);
    const stored = payloadText(history);
    assert.ok(stored.includes('echo_meta') && stored.includes('[redacted]'), 'the history, the activity result included, was read');
    assert.ok(!stored.includes(token), 'no token in the workflow history');
  });

  it('is refused as a bearer token by the REST API and by /mcp', async () => {
    assert.ok(token, 'the first test received a token');
    const me = await platform.api.withToken(token).get('/me');
    assert.equal(me.status, 401, me.text);
    assert.match(me.body.detail, /delegation token/);
    const mcp = await platform.api.withToken(token).request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    assert.equal(mcp.status, 401, mcp.text);
  });

  it('is not sent for a plain sign-in token, nor once the credential is deactivated', async () => {
    assert.deepEqual((await call(plain, serverId)).meta, {});
    const off = await plain.patch(`/server-credentials/${clientId}`, { active: false });
    assert.equal(off.status, 200, off.text);
    assert.deepEqual((await call(viaConsole, serverId)).meta, {});
    assert.equal((await plain.patch(`/server-credentials/${clientId}`, { active: true })).status, 200);
    assert.ok((await call(viaConsole, serverId)).meta[metaKey]);
  });

  it('is not sent to a server whose credential someone else made (only the registration’s writer makes it first-party)', async () => {
    const other = await registerServer(plain, workspace, { transport: { type: 'http', url: echo.url } }, 'not first-party');
    const stranger = await platform.newUser();
    await credentialFor(stranger, other, ['artifact:read']);
    assert.deepEqual((await call(viaConsole, other)).meta, {});
  });
});
