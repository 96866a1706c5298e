// The response contract (issue #32): every JSON route declares the schema of its answer, derived from
// the presenter's zod schema, and the answers of a realistic session (a person's first session as the
// generated-client script drives it, an administrator, credentials, consents, subscriptions, an external
// MCP server, transforms, OAuth registration, the codec) validate against what the document declares.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { routes } from '../../src/api/app.js';
import { templateOf } from '../../src/api/openapi/document.js';
import type { RouteDef } from '../../src/api/route.js';
import { eventually } from '../helpers/http.js';
import { everythingHttp, registerServer, type Started } from '../helpers/mcp-servers.js';
import { adminEmail, adminPassword, startPlatform, type TestPlatform } from '../helpers/platform.js';
import { session } from './client-script.js';
import { CheckedApi, ResponseChecker } from './response-check.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Routes that answer no JSON on success, each with why: what the coverage check leaves out. Every
 * other route declares `doc.response` (a DELETE answers 204, with no body, unless it says otherwise).
 */
const notJson: Record<string, string> = {
  'get /metrics': 'the Prometheus text exposition',
  'get /docs': 'the reference page (HTML)',
  'get /docs/{file}': "the reference page's scripts and stylesheet",
  'get /connections/{authorizer_id}/callback': 'the page the provider redirects the browser to (HTML)',
  'get /workspaces/{id}/events/stream': 'Server-Sent Events',
  'get /artifacts/{id}/turns/{turn_id}/stream':
    "Server-Sent Events (a chat turn's answer as it is written; the last `turn` event holds GET /artifacts/{id}/turns/{turn_id}'s answer)",
  'get /artifacts/{id}/results/stream': "Server-Sent Events (each `results` event holds GET /artifacts/{id}/results's answer)",
  'get /artifacts/{id}/status/stream': "Server-Sent Events (each `status` event holds GET /artifacts/{id}/status's answer)",
  'post /mcp': 'JSON-RPC (MCP Streamable HTTP): the MCP schema describes it',
  'post /mcp/clients/{id}': "JSON-RPC (MCP Streamable HTTP), an MCP client configuration's endpoint: the MCP schema describes it",
  'get /oauth/authorize': 'a sign-in or consent page, or a redirect to the client',
  'post /oauth/login': 'a page or a redirect (browser form)',
  'post /oauth/consent': 'a redirect to the client (browser form)',
  'post /oauth/sign-out': 'a redirect or a page (browser form)',
  'get /oauth/idp/{name}': 'a redirect to the identity provider',
  'get /oauth/idp/{name}/callback': 'a redirect after signing in',
  'get /oauth/consents': "the person's authorizations (HTML)",
  'post /oauth/consents/revoke': 'a redirect back to the page (browser form)',
  'get /console': 'a redirect to /console/',
  'get /console/{rest}': 'the web console (HTML and assets)',
};

/** Routes with a declared answer that this session does not reach, each with why. */
const notExercised: Record<string, string> = {
  'post /connections/{authorizer_id}/start': 'needs an external OAuth authorizer (test/connections covers it)',
  'post /artifacts/{id}/op/connect': 'needs an MCP server behind a real authorization server (test/connections/discovered-oauth covers it)',
  'get /connections/{authorizer_id}/client-metadata':
    'needs an authorizer whose client id is its own metadata URL, made over https (test/connections/discovered-oauth-cimd covers it)',
  'get /connections/{id}': 'needs a connection, made through an external authorizer',
  'delete /connections/{id}': 'needs a connection, made through an external authorizer',
  'post /connections/{id}/project': 'needs a connection, made through an external authorizer',
  'post /codec/session/decode': 'needs a browser session cookie from a Temporal UI origin (test/temporal/codec.test.ts covers it)',
  'post /codec/session/encode': 'needs a browser session cookie from a Temporal UI origin (test/temporal/codec.test.ts covers it)',
  'post /relay/poll': 'a long poll that answers only when a call waits, or after 20 s (test/relay/protocol.test.ts covers it)',
};

const key = (r: RouteDef) => `${r.method} ${templateOf(r.path).template}`;
const status = (r: RouteDef) => r.doc?.status ?? (r.method === 'delete' ? 204 : 200);

let platform: TestPlatform;
let document: any;
let checker: ResponseChecker;
let everything: Started;
let hook: Server;
let hookUrl = '';

before(async () => {
  platform = await startPlatform({
    MCP_OUTBOUND_ALLOW: '127.0.0.0/8',
    SUBSCRIPTION_RETRY_INITIAL_MS: '50',
    SUBSCRIPTION_RETRY_MAX_MS: '100',
    SUBSCRIPTION_PAUSE_AFTER_ATTEMPTS: '2',
    SUBSCRIPTION_POLL_SECONDS: '1',
  });
  document = (await platform.api.get('/openapi.json')).body;
  checker = new ResponseChecker(routes, document);
  everything = await everythingHttp();
  // A webhook receiver that refuses every delivery: the subscription pauses, and can be resumed.
  hook = createServer((_req, res) => res.writeHead(500).end());
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook`;
});
after(async () => {
  await platform?.close();
  await everything?.close();
  hook?.closeAllConnections();
  await new Promise((r) => hook?.close(r));
});

const checked = (token?: string) => new CheckedApi(platform.url, token, checker);
const form = (api: CheckedApi, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  api.request('POST', path, {
    raw: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });

async function newPerson(admin: CheckedApi): Promise<CheckedApi & { id: string }> {
  const email = `person-${randomBytes(4).toString('hex')}@example.test`;
  const password = randomBytes(12).toString('hex');
  const created = await admin.post('/users', { email, password });
  assert.equal(created.status, 201, created.text);
  return Object.assign(await checked().login(email, password), { id: created.body.id as string });
}

describe('the response contract', () => {
  it('declares the schema of every JSON answer, from the route table (the exceptions are listed, with why)', () => {
    const undeclared = routes.filter((r) => !r.doc?.response && status(r) !== 204 && !(key(r) in notJson)).map(key);
    assert.deepEqual(undeclared, [], 'routes that answer JSON without doc.response');
    for (const r of routes) {
      const responses = document.paths[templateOf(r.path).template][r.method].responses;
      const successes = Object.keys(responses).filter((s) => /^[23]/.test(s));
      assert.ok(successes.length > 0, key(r));
      for (const s of successes) {
        const schema = responses[s].content?.['application/json']?.schema;
        if (r.doc?.response) assert.ok(schema && Object.keys(schema).length > 0, `${key(r)} ${s}: no schema in the document`);
      }
    }
    assert.deepEqual(
      Object.keys(notJson).filter((k) => !routes.some((r) => key(r) === k)),
      [],
      'exceptions that name no route',
    );
  });

  it("validates a person's first session, run by the generated-client script, against the declared schemas", async () => {
    const admin = await checked().login(adminEmail, adminPassword);
    const alice = await newPerson(admin);
    const lines = await session(alice);
    assert.ok(
      lines.some((l) => l.startsWith('commit committed')),
      lines.join('\n'),
    );
    assert.deepEqual(checker.failures, []);
  });

  it('validates the public, administrator, credential and consent answers', async () => {
    const anonymous = checked();
    for (const path of [
      '/healthz',
      '/readyz',
      '/openapi.json',
      '/.well-known/jwks.json',
      '/.well-known/mcp.json',
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource/mcp/clients/0196a3f0-0000-7000-8000-0000000000aa',
    ])
      assert.equal((await anonymous.get(path)).status, 200, path);

    const admin = await anonymous.login(adminEmail, adminPassword);
    const bob = await newPerson(admin);
    assert.equal((await admin.post(`/admin/users/${bob.id}/unlock`)).status, 200);
    const payloads = { payloads: [{ metadata: { encoding: 'anNvbi9wbGFpbg==' }, data: 'eyJoZWxsbyI6IndvcmxkIn0=' }] };
    const sealed = await admin.post('/codec/encode', payloads);
    assert.equal(sealed.status, 200, sealed.text);
    assert.equal((await admin.post('/codec/decode', sealed.body)).status, 200);

    const chosen = `contract-${randomBytes(3).toString('hex')}`;
    const cred = await bob.post('/server-credentials', {
      client_id: chosen,
      name: 'indexer',
      server_id: 'server-1',
      host_id: 'host-1',
      scopes: ['artifact:read'],
    });
    assert.equal(cred.status, 201, cred.text);
    const clientId = cred.body.client_id;
    assert.equal((await bob.get('/server-credentials')).status, 200);
    assert.equal((await bob.get(`/server-credentials/${clientId}`)).status, 200);
    assert.equal((await bob.patch(`/server-credentials/${clientId}`, { name: 'indexer 2' })).status, 200);
    const rotated = await bob.post(`/server-credentials/${clientId}/rotate`);
    assert.equal(rotated.status, 200, rotated.text);
    const token = await form(anonymous, '/auth/token', {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: rotated.body.client_secret,
    });
    assert.equal(token.status, 200, token.text);

    const apiKey = await bob.post('/api-keys', { name: 'ci', scopes: ['artifact:read'] });
    assert.equal(apiKey.status, 201, apiKey.text);
    assert.equal((await anonymous.post('/api-keys/exchange', { api_key: apiKey.body.key })).status, 200);
    const named = await bob.get(
      `/names?people=${bob.id}&api_keys=${apiKey.body.id}&server_credentials=${clientId}&oauth_clients=x&artifacts=x`,
    );
    assert.equal(named.status, 200, named.text);
    assert.equal(named.body.api_keys[0].name, 'ci');
    const consent = await bob.post('/consents', { credential_kind: 'api_key', credential_id: apiKey.body.id });
    assert.equal(consent.status, 201, consent.text);
    assert.equal((await bob.get('/consents')).status, 200);
    assert.equal((await bob.delete(`/consents/api_key/${apiKey.body.id}`)).status, 204);
    assert.equal((await bob.delete(`/api-keys/${apiKey.body.id}`)).status, 204);
    assert.equal((await bob.delete(`/server-credentials/${clientId}`)).status, 204);

    const registered = await anonymous.post('/oauth/register', {
      client_name: 'Contract client',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      token_endpoint_auth_method: 'none',
    });
    assert.equal(registered.status, 201, registered.text);
    const revoked = await form(anonymous, '/oauth/revoke', { token: 'not-a-token', client_id: registered.body.client_id });
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal((await bob.get('/connections')).status, 200);
    assert.equal((await admin.post('/admin/signing-keys/rotate')).status, 200);
    assert.deepEqual(checker.failures, []);
  });

  it('validates sharing, subscriptions, an external MCP server, agents and transforms', async () => {
    const admin = await checked().login(adminEmail, adminPassword);
    const [carol, dave] = [await newPerson(admin), await newPerson(admin)];
    const ws = (await carol.post('/workspaces', { name: 'tools' })).body.id;
    const coll = (await carol.post('/collections', { name: 'shelf' })).body.id;
    for (const base of [`/workspaces/${ws}`, `/collections/${coll}`]) {
      assert.equal((await carol.post(`${base}/shares`, { person_id: dave.id, flags: 'RS' })).status, 200);
      assert.equal((await carol.get(`${base}/shares`)).status, 200);
      assert.equal((await carol.delete(`${base}/shares/${dave.id}`)).status, 204);
    }
    assert.equal((await carol.get('/collections')).status, 200);
    assert.equal((await carol.patch(`/collections/${coll}`, { description: 'kept' })).status, 200);
    assert.equal((await carol.get(`/workspaces/${ws}`)).status, 200);

    const server = await registerServer(carol, ws, { transport: { type: 'http', url: everything.url } }, 'everything');
    const listed = await carol.get(`/mcp/workspaces/${ws}/servers`);
    assert.equal(listed.status, 200, listed.text);
    const entry = listed.body.servers.find((s: { id: string }) => s.id === server);
    const echo = await carol.post(`/artifacts/${server}/invoke`, { name: 'echo', arguments: { message: 'contract' } });
    assert.equal(echo.status, 200, echo.text);
    assert.equal((await carol.get(`/invocations/${echo.body.invocation_id}`)).status, 200);
    const resource = entry.resources.find((r: { mime_type?: string }) => r.mime_type?.startsWith('text/')) ?? entry.resources[0];
    assert.equal((await carol.post(`/artifacts/${server}/op/resources_read`, { uri: resource.uri })).status, 200);
    assert.equal((await carol.post(`/artifacts/${server}/op/resources_import`, { uri: resource.uri, title: 'imported' })).status, 201);

    const subscription = await carol.post(`/workspaces/${ws}/subscriptions`, { url: hookUrl, server_id: server });
    assert.equal(subscription.status, 201, subscription.text);
    const subId = subscription.body.id;
    assert.equal((await carol.get(`/workspaces/${ws}/subscriptions`)).status, 200);
    assert.equal((await carol.post(`/subscriptions/${subId}/rotate-secret`)).status, 200);
    await carol.post('/artifacts', { title: 'ping', content_type: 'text/plain', content: 'ping', collection_id: ws });
    await eventually(async () => (await carol.get(`/subscriptions/${subId}`)).body.state === 'paused', 60_000, 'the subscription to pause');
    assert.equal((await carol.get(`/subscriptions/${subId}/deliveries`)).status, 200);
    assert.equal((await carol.post(`/subscriptions/${subId}/resume`)).status, 202);
    assert.equal((await carol.delete(`/subscriptions/${subId}`)).status, 204);

    const note = (
      await carol.post('/artifacts', { title: 'Guide', content_type: 'text/markdown', content: '# Budget\nTravel.', collection_id: ws })
    ).body.id;
    const agents = (await carol.get('/agents')).body.items;
    const tagger = agents.find((a: { name: string }) => a.name === 'tag-keywords').id;
    const invoke = (wait: number) =>
      carol.post(`/artifacts/${tagger}/invoke`, {
        workspace_id: ws,
        artifact_ids: [note],
        params: { rules: { finance: ['budget'] } },
        wait_seconds: wait,
      });
    const run = await invoke(60);
    assert.equal(run.status, 200, run.text);
    const applied = await carol.post(`/invocations/${run.body.invocation_id}/apply`, { wait_seconds: 60 });
    assert.equal(applied.status, 200, applied.text);
    // Another request (another input) that is not waited for: 202 with where to poll.
    const pending = await carol.post(`/artifacts/${tagger}/invoke`, { workspace_id: ws, artifact_ids: [], wait_seconds: 0 });
    assert.ok([200, 202].includes(pending.status), pending.text);

    const commit = await carol.post(`/workspaces/${ws}/commits`, { collection_id: coll, message: 'Not yet', artifact_ids: [note] });
    assert.equal(commit.status, 202, commit.text);
    await eventually(async () => (await carol.get(`/commits/${commit.body.id}`)).body.state === 'awaiting_approval', 60_000, 'the preview');
    const rejected = await carol.post(`/commits/${commit.body.id}/reject`, { comment: 'not yet' });
    assert.equal(rejected.status, 200, rejected.text);

    const transform = (steps: unknown[]) =>
      carol.post('/artifacts', {
        title: 'review',
        content_type: 'application/vnd.platform.transform+json',
        content: JSON.stringify({ steps }),
        collection_id: ws,
      });
    const reviewed = await transform([
      { id: 'split', kind: 'agent', agent: 'split-sections', params: { level: 1 } },
      { id: 'review', kind: 'approval', title: 'Check the sections' },
    ]);
    assert.equal(reviewed.status, 201, reviewed.text);
    for (const decision of ['approve', 'reject']) {
      const started = await carol.post(`/artifacts/${reviewed.body.id}/invoke`, {
        artifact_ids: [note],
        wait_seconds: 60,
        input: decision,
      });
      assert.equal(started.status, 200, started.text);
      assert.equal(started.body.status, 'awaiting_approval', started.text);
      const decided = await carol.post(`/invocations/${started.body.invocation_id}/${decision}`, { comment: decision });
      assert.equal(decided.status, 200, decided.text);
    }

    // A bulk import (one item refused), its progress, its report, and the workspace's imports.
    const imported = await carol.request('POST', `/workspaces/${ws}/imports`, {
      raw: JSON.stringify([
        { title: 'Imported', content_type: 'text/plain', content: 'imported text' },
        { title: '', content_type: 'text/plain', content: 'no title' },
      ]),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(imported.status, 202, imported.text);
    await eventually(
      async () => (await carol.get(`/imports/${imported.body.id}`)).body.state === 'completed',
      30_000,
      'the import completed',
    );
    assert.equal((await carol.get(`/imports/${imported.body.id}/items?status=failed`)).body.items.length, 1);
    assert.equal((await carol.get(`/workspaces/${ws}/imports`)).status, 200);

    // A host, its relay's credential and first words, and the hosts' status.
    const host = await carol.post('/artifacts', {
      title: 'laptop',
      content_type: 'application/vnd.platform.host+json',
      content: '{}',
      collection_id: ws,
    });
    assert.equal(host.status, 201, host.text);
    const relayCred = await carol.post('/server-credentials', {
      client_id: 'relay-contract',
      name: 'relay',
      server_id: 'relay',
      host_id: host.body.id,
      scopes: ['artifact:read'],
      resource_filters: { workspaces: [ws], collections: [] },
    });
    const relayToken = await form(checked(), '/auth/token', {
      grant_type: 'client_credentials',
      client_id: relayCred.body.client_id,
      client_secret: relayCred.body.client_secret,
    });
    const relay = checked(relayToken.body.access_token);
    const hello = await relay.post('/relay/hello', {
      session: '0196a3f0-0000-7000-8000-0000000000bb',
      version: '1',
      os: 'linux',
      arch: 'x64',
      sandbox: 'bwrap',
      policy: { commands: ['npx'], packages: [], repositories: [], folders: [], network: false },
    });
    assert.equal(hello.status, 200, hello.text);
    assert.equal((await carol.get('/relay/hosts')).body.items[0].connected, true);
    assert.deepEqual(checker.failures, []);
  });

  it("validates an MCP client configuration's rendered snippets", async () => {
    const admin = await checked().login(adminEmail, adminPassword);
    const erin = await newPerson(admin);
    const created = await erin.post('/artifacts', {
      title: 'Assistant',
      content_type: 'application/vnd.platform.mcp-client+json',
      content: JSON.stringify({ workspaces: '*', collections: '*', tools: ['search'], scopes: ['search:read'], auth: { type: 'api_key' } }),
    });
    assert.equal(created.status, 201, created.text);
    assert.equal((await erin.get(`/artifacts/${created.body.id}/client-config`)).status, 200);
    assert.deepEqual(checker.failures, []);
  });

  it("validates a view's results", async () => {
    const admin = await checked().login(adminEmail, adminPassword);
    const frank = await newPerson(admin);
    const ws = (await frank.post('/workspaces', { name: 'views' })).body.id;
    await frank.post('/artifacts', {
      title: 'Tagged',
      content_type: 'text/plain',
      content: 't',
      context: { tags: ['a'] },
      collection_id: ws,
    });
    const created = await frank.post('/artifacts', {
      title: 'Tagged ones',
      content_type: 'application/vnd.platform.view+json',
      content: JSON.stringify({ sources: { workspaces: [ws, '0196a3f0-0000-7000-8000-0000000000cc'] }, filter: { tags: ['a'] } }),
      collection_id: ws,
    });
    assert.equal(created.status, 201, created.text);
    const results = await frank.get(`/artifacts/${created.body.id}/results`);
    assert.equal(results.status, 200, results.text);
    assert.equal(results.body.items.length, 1);
    assert.deepEqual(checker.failures, []);
  });

  it('validates a chat turn, added and read', async () => {
    const admin = await checked().login(adminEmail, adminPassword);
    const gina = await newPerson(admin);
    const ws = (await gina.post('/workspaces', { name: 'chats' })).body.id;
    await gina.post('/artifacts', {
      title: 'Gearbox',
      content_type: 'text/plain',
      content: 'Gearbox oil every 2000 hours.',
      collection_id: ws,
    });
    const chat = await gina.post('/artifacts', {
      title: 'Chat',
      content_type: 'application/vnd.platform.chat+json',
      content: '{}',
      collection_id: ws,
    });
    assert.equal(chat.status, 201, chat.text);
    const turn = await gina.post(`/artifacts/${chat.body.id}/turns`, { message: 'How often is the gearbox oil changed?' });
    assert.equal(turn.status, 200, turn.text);
    assert.equal((await gina.get(turn.body.poll)).status, 200);
    assert.equal((await gina.get(`/artifacts/${chat.body.id}/turns`)).status, 200);
    assert.deepEqual(checker.failures, []);
  });

  it("validates a stream's status, started and stopped", async () => {
    const admin = await checked().login(adminEmail, adminPassword);
    const hana = await newPerson(admin);
    const ws = (await hana.post('/workspaces', { name: 'streams' })).body.id;
    const secret = (await hana.post('/secrets', { name: 'stream key', value: randomBytes(16).toString('hex') })).body.id;
    const stream = await hana.post('/artifacts', {
      title: 'Stream',
      content_type: 'application/vnd.platform.stream+json',
      content: JSON.stringify({ source: { mode: 'push' }, key_secret_id: secret, record: { stills: { every_seconds: 5 } } }),
      collection_id: ws,
    });
    assert.equal(stream.status, 201, stream.text);
    assert.equal((await hana.get(`/artifacts/${stream.body.id}/status`)).status, 200);
    const started = await hana.post(`/artifacts/${stream.body.id}/op/start`, {});
    assert.equal(started.status, 200, started.text);
    const stopped = await hana.post(`/artifacts/${stream.body.id}/op/stop`, {});
    assert.equal(stopped.status, 200, stopped.text);
    assert.deepEqual(checker.failures, []);
  });

  it('answered every route that declares its answer (the exceptions are listed, with why)', () => {
    const missed = routes.filter((r) => r.doc?.response && !checker.seen.has(key(r)) && !(key(r) in notExercised)).map(key);
    assert.deepEqual(missed, []);
    assert.deepEqual(
      Object.keys(notExercised).filter((k) => checker.seen.has(k)),
      [],
      'listed as not exercised, yet answered: take them off the list',
    );
  });
});
