// The access matrix, generated from the route table: every non-public route × every way a caller can
// be refused, each with its status and nothing changed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { routes } from '../../src/api/app.js';
import { connectionIdFor } from '../../src/connections/ids.js';
import { scopes } from '../../src/identity/principal.js';
import type { RouteDef } from '../../src/api/route.js';
import { Api } from '../helpers/http.js';
import { asServer, createApiKey, createServerCredential } from '../helpers/credentials.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { commitInto } from '../helpers/commit.js';

/** Every coarse scope: a credential that holds them all is refused only by grants and route rules. */
const allScopes = [...scopes];

/** What a route acts on: a workspace/collection or something inside one, something a person owns, or nothing. */
type Target = 'container' | 'owned' | 'none';
interface Sample {
  path: string;
  body?: unknown;
  target: Target;
}

let platform: TestPlatform;
let samples: Record<string, Sample>;
const callers: Record<string, Api> = {};
let carolId: string;

before(async () => {
  platform = await startPlatform({ MCP_OUTBOUND_ALLOW: '127.0.0.0/8' }, { worker: false });
  const alice = await platform.newUser();
  const mallory = await platform.newUser();
  const carol = await platform.newUser();
  carolId = carol.userId;

  const ws = (await alice.post('/workspaces', { name: 'target' })).body.id;
  const col = (await alice.post('/collections', { name: 'target' })).body.id;
  const otherWs = (await alice.post('/workspaces', { name: 'allowed' })).body.id;
  const otherCol = (await alice.post('/collections', { name: 'allowed' })).body.id;
  const art = (await alice.post('/artifacts', { title: 't', content_type: 'text/plain', content: 't', collection_id: ws })).body.id;
  const art2 = (await alice.post('/artifacts', { title: 't2', content_type: 'text/plain', content: 't', collection_id: ws })).body.id;
  const secret = (await alice.post('/secrets', { name: 's', value: 'v' })).body.id;
  const mcpClient = (
    await alice.post('/artifacts', {
      title: 'client',
      content_type: 'application/vnd.platform.mcp-client+json',
      content: JSON.stringify({
        workspaces: '*',
        collections: '*',
        tools: ['get_artifact'],
        scopes: ['artifact:read'],
        auth: { type: 'oauth' },
      }),
      collection_id: ws,
    })
  ).body.id;
  const view = (
    await alice.post('/artifacts', {
      title: 'view',
      content_type: 'application/vnd.platform.view+json',
      content: JSON.stringify({ sources: { workspaces: [ws] } }),
      collection_id: ws,
    })
  ).body.id;
  const chat = (
    await alice.post('/artifacts', { title: 'chat', content_type: 'application/vnd.platform.chat+json', content: '{}', collection_id: ws })
  ).body.id;
  const stream = (
    await alice.post('/artifacts', {
      title: 'stream',
      content_type: 'application/vnd.platform.stream+json',
      content: JSON.stringify({ source: { mode: 'push' }, key_secret_id: secret, record: { stills: { every_seconds: 5 } } }),
      collection_id: ws,
    })
  ).body.id;
  const server = (
    await alice.post('/artifacts', {
      title: 'srv',
      content_type: 'application/vnd.platform.mcp-server+json',
      content: JSON.stringify({ transport: { type: 'http', url: 'http://127.0.0.1:9/mcp' } }),
      collection_id: ws,
    })
  ).body.id;
  const authorizer = (
    await alice.post('/artifacts', {
      title: 'oauth',
      content_type: 'application/vnd.platform.authorizer+json',
      content: JSON.stringify({
        provider: 'p',
        auth_url: 'https://idp.example.com/auth',
        token_url: 'https://idp.example.com/token',
        scopes: [],
        client_id: 'c',
        pkce: true,
      }),
      collection_id: ws,
    })
  ).body.id;
  // A connection record as a start would leave it (no worker runs here to start its workflow).
  const connection = connectionIdFor(alice.userId, authorizer);
  await platform.services.connections.open({ _id: connection, user_id: alice.userId, authorizer_id: authorizer });
  // A versioned collection artifact, committed the only way there is; the worker runs for that alone.
  await platform.startWorker();
  const [committed] = await commitInto(alice, col, [{ title: 'c' }]);
  await platform.stopWorker();
  const commit = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'matrix' });
  if (commit.status !== 202) throw new Error(`commit not requested: ${commit.text}`);
  const subscription = (await alice.post(`/workspaces/${ws}/subscriptions`, { url: 'http://127.0.0.1:9/hook', server_id: server })).body.id;
  await alice.post(`/workspaces/${ws}/shares`, { person_id: mallory.userId, flags: 'R' });
  await alice.post(`/collections/${col}/shares`, { person_id: mallory.userId, flags: 'R' });
  const aliceCred = await createServerCredential(alice, ['artifact:read']);
  const key = await createApiKey(alice, ['artifact:read']);
  const broker = await createServerCredential(mallory, allScopes);
  await carol.post('/consents', { credential_kind: 'server_credential', credential_id: broker.client_id });
  await alice.post('/consents', { credential_kind: 'api_key', credential_id: key.id });

  const person = mallory.userId;
  const art_ = { title: 'x', content_type: 'text/plain', content: 'x' };
  // An import (no worker runs here: it stays staged and running, which its reads need no more than).
  const imported = await alice.request('POST', `/workspaces/${ws}/imports`, { body: [art_] });
  if (imported.status !== 202) throw new Error(`import not requested: ${imported.text}`);
  samples = {
    'POST /users': { path: '/users', body: { email: 'new@example.test', password: 'long enough password' }, target: 'none' },
    'POST /admin/signing-keys/rotate': { path: '/admin/signing-keys/rotate', target: 'none' },
    'POST /admin/users/:id/unlock': { path: `/admin/users/${person}/unlock`, target: 'none' },
    'POST /codec/decode': { path: '/codec/decode', body: { payloads: [] }, target: 'none' },
    'POST /codec/encode': { path: '/codec/encode', body: { payloads: [] }, target: 'none' },
    'POST /server-credentials': {
      path: '/server-credentials',
      body: { client_id: 'matrix-new', name: 'n', server_id: 's', host_id: 'h', scopes: ['artifact:read'] },
      target: 'none',
    },
    'GET /server-credentials': { path: '/server-credentials', target: 'none' },
    'GET /server-credentials/:client_id': { path: `/server-credentials/${aliceCred.client_id}`, target: 'owned' },
    'PATCH /server-credentials/:client_id': {
      path: `/server-credentials/${aliceCred.client_id}`,
      body: { active: false },
      target: 'owned',
    },
    'POST /server-credentials/:client_id/rotate': { path: `/server-credentials/${aliceCred.client_id}/rotate`, target: 'owned' },
    'DELETE /server-credentials/:client_id': { path: `/server-credentials/${aliceCred.client_id}`, target: 'owned' },
    'POST /api-keys': { path: '/api-keys', body: { name: 'k', scopes: ['artifact:read'] }, target: 'none' },
    'GET /api-keys': { path: '/api-keys', target: 'none' },
    'DELETE /api-keys/:id': { path: `/api-keys/${key.id}`, target: 'owned' },
    'POST /consents': {
      path: '/consents',
      body: { credential_kind: 'server_credential', credential_id: aliceCred.client_id },
      target: 'none',
    },
    'GET /consents': { path: '/consents', target: 'none' },
    'GET /me': { path: '/me', target: 'none' },
    'DELETE /consents/:credential_kind/:credential_id': { path: `/consents/api_key/${key.id}`, target: 'owned' },
    'POST /secrets': { path: '/secrets', body: { name: 'n', value: 'v' }, target: 'none' },
    'GET /secrets': { path: '/secrets', target: 'none' },
    'GET /secrets/:id': { path: `/secrets/${secret}`, target: 'owned' },
    'DELETE /secrets/:id': { path: `/secrets/${secret}`, target: 'owned' },
    'POST /connections/:authorizer_id/start': { path: `/connections/${authorizer}/start`, body: {}, target: 'container' },
    'GET /connections': { path: '/connections', target: 'none' },
    'GET /connections/:id': { path: `/connections/${connection}`, target: 'owned' },
    'DELETE /connections/:id': { path: `/connections/${connection}`, target: 'owned' },
    'POST /connections/:id/project': { path: `/connections/${connection}/project`, target: 'owned' },
    'POST /workspaces': { path: '/workspaces', body: { name: 'n' }, target: 'none' },
    'GET /workspaces': { path: '/workspaces', target: 'none' },
    'GET /workspaces/:id': { path: `/workspaces/${ws}`, target: 'container' },
    'PATCH /workspaces/:id': { path: `/workspaces/${ws}`, body: { name: 'changed' }, target: 'container' },
    'GET /workspaces/:id/shares': { path: `/workspaces/${ws}/shares`, target: 'container' },
    'POST /workspaces/:id/shares': { path: `/workspaces/${ws}/shares`, body: { person_id: person, flags: 'RCUD' }, target: 'container' },
    'DELETE /workspaces/:id/shares/:person_id': { path: `/workspaces/${ws}/shares/${person}`, target: 'container' },
    'POST /collections': { path: '/collections', body: { name: 'n' }, target: 'none' },
    'GET /collections': { path: '/collections', target: 'none' },
    'GET /collections/:id': { path: `/collections/${col}`, target: 'container' },
    'PATCH /collections/:id': { path: `/collections/${col}`, body: { name: 'changed' }, target: 'container' },
    'GET /collections/:id/shares': { path: `/collections/${col}/shares`, target: 'container' },
    'POST /collections/:id/shares': { path: `/collections/${col}/shares`, body: { person_id: person, flags: 'RCUD' }, target: 'container' },
    'DELETE /collections/:id/shares/:person_id': { path: `/collections/${col}/shares/${person}`, target: 'container' },
    'GET /workspaces/:id/events': { path: `/workspaces/${ws}/events`, target: 'container' },
    'GET /workspaces/:id/events/stream': { path: `/workspaces/${ws}/events/stream`, target: 'container' },
    'POST /workspaces/:id/subscriptions': {
      path: `/workspaces/${ws}/subscriptions`,
      body: { url: 'http://127.0.0.1:9/hook', server_id: server },
      target: 'container',
    },
    'GET /workspaces/:id/subscriptions': { path: `/workspaces/${ws}/subscriptions`, target: 'container' },
    'GET /subscriptions/:id': { path: `/subscriptions/${subscription}`, target: 'container' },
    'DELETE /subscriptions/:id': { path: `/subscriptions/${subscription}`, target: 'container' },
    'POST /subscriptions/:id/resume': { path: `/subscriptions/${subscription}/resume`, target: 'container' },
    'POST /subscriptions/:id/rotate-secret': { path: `/subscriptions/${subscription}/rotate-secret`, target: 'container' },
    'GET /subscriptions/:id/deliveries': { path: `/subscriptions/${subscription}/deliveries`, target: 'container' },
    'POST /artifacts/search': { path: '/artifacts/search', body: { query: 't' }, target: 'none' },
    'POST /artifacts': { path: '/artifacts', body: { ...art_, collection_id: ws }, target: 'container' },
    'GET /artifacts': { path: `/artifacts?collection_id=${ws}`, target: 'container' },
    'GET /artifacts/:id': { path: `/artifacts/${art}`, target: 'container' },
    'PATCH /artifacts/:id': { path: `/artifacts/${art}`, body: { title: 'changed' }, target: 'container' },
    'POST /artifacts/:id/move': { path: `/artifacts/${art}/move`, body: { after_id: art2 }, target: 'container' },
    'DELETE /artifacts/:id': { path: `/artifacts/${art}`, target: 'container' },
    'GET /artifacts/:id/versions': { path: `/artifacts/${committed}/versions`, target: 'container' },
    'GET /names': { path: `/names?people=${person}&artifacts=${art}`, target: 'none' },
    'GET /artifacts/:id/versions/:n': { path: `/artifacts/${committed}/versions/1`, target: 'container' },
    'GET /artifacts/:id/revisions': { path: `/artifacts/${art}/revisions`, target: 'container' },
    'GET /artifacts/:id/revisions/:n': { path: `/artifacts/${art}/revisions/1`, target: 'container' },
    'POST /artifacts/:id/manage': { path: `/artifacts/${art}/manage`, body: { action: 'archive' }, target: 'container' },
    'POST /workspaces/:id/commit-preview': { path: `/workspaces/${ws}/commit-preview`, body: { collection_id: col }, target: 'container' },
    'POST /workspaces/:id/commits': { path: `/workspaces/${ws}/commits`, body: { collection_id: col, message: 'm' }, target: 'container' },
    'GET /commits': { path: '/commits', target: 'none' },
    'POST /workspaces/:id/imports': { path: `/workspaces/${ws}/imports`, body: [art_], target: 'container' },
    'GET /workspaces/:id/imports': { path: `/workspaces/${ws}/imports`, target: 'container' },
    'GET /imports/:id': { path: `/imports/${imported.body.id}`, target: 'container' },
    'GET /imports/:id/items': { path: `/imports/${imported.body.id}/items`, target: 'container' },
    'GET /commits/:id': { path: `/commits/${commit.body.id}`, target: 'container' },
    'GET /commits/:id/items': { path: `/commits/${commit.body.id}/items`, target: 'container' },
    'POST /commits/:id/approve': { path: `/commits/${commit.body.id}/approve`, body: {}, target: 'container' },
    'POST /commits/:id/reject': { path: `/commits/${commit.body.id}/reject`, body: { comment: 'no' }, target: 'container' },
    'POST /artifacts/:id/invoke': { path: `/artifacts/${server}/invoke`, body: { name: 'echo', arguments: {} }, target: 'container' },
    'POST /artifacts/:id/op/connect': { path: `/artifacts/${server}/op/connect`, body: {}, target: 'container' },
    'POST /artifacts/:id/op/resources_read': {
      path: `/artifacts/${server}/op/resources_read`,
      body: { uri: 'demo://x' },
      target: 'container',
    },
    'POST /artifacts/:id/op/resources_import': {
      path: `/artifacts/${server}/op/resources_import`,
      body: { uri: 'demo://x' },
      target: 'container',
    },
    'POST /artifacts/:id/open': { path: `/artifacts/${art}/open`, target: 'container' },
    'GET /artifacts/:id/client-config': { path: `/artifacts/${mcpClient}/client-config`, target: 'container' },
    'GET /artifacts/:id/results': { path: `/artifacts/${view}/results`, target: 'container' },
    'GET /artifacts/:id/results/stream': { path: `/artifacts/${view}/results/stream`, target: 'container' },
    'POST /artifacts/:id/turns': { path: `/artifacts/${chat}/turns`, body: { message: 'hello' }, target: 'container' },
    'GET /artifacts/:id/turns': { path: `/artifacts/${chat}/turns`, target: 'container' },
    'GET /artifacts/:id/turns/:turn_id': { path: `/artifacts/${chat}/turns/0196a3f0-0000-7000-8000-0000000000dd`, target: 'container' },
    'GET /artifacts/:id/turns/:turn_id/stream': {
      path: `/artifacts/${chat}/turns/0196a3f0-0000-7000-8000-0000000000dd/stream`,
      target: 'container',
    },
    'POST /artifacts/:id/op/start': { path: `/artifacts/${stream}/op/start`, target: 'container' },
    'POST /artifacts/:id/op/stop': { path: `/artifacts/${stream}/op/stop`, target: 'container' },
    'GET /artifacts/:id/status': { path: `/artifacts/${stream}/status`, target: 'container' },
    'GET /artifacts/:id/status/stream': { path: `/artifacts/${stream}/status/stream`, target: 'container' },
    // An MCP client configuration's endpoint: whoever cannot read the configuration is told it does not exist.
    'POST /mcp/clients/:id': {
      path: `/mcp/clients/${mcpClient}`,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      target: 'container',
    },
    // An invocation's workspace is known only from its run (no worker runs here): the id is unknown either way.
    'GET /invocations/:id': { path: '/invocations/0196a3f0-0000-7000-8000-000000000000', target: 'none' },
    'POST /invocations/:id/apply': { path: '/invocations/0196a3f0-0000-7000-8000-000000000000/apply', body: {}, target: 'none' },
    'POST /invocations/:id/discard': { path: '/invocations/0196a3f0-0000-7000-8000-000000000000/discard', target: 'none' },
    'POST /invocations/:id/approve': { path: '/invocations/0196a3f0-0000-7000-8000-000000000000/approve', body: {}, target: 'none' },
    'POST /invocations/:id/reject': { path: '/invocations/0196a3f0-0000-7000-8000-000000000000/reject', body: {}, target: 'none' },
    'GET /agents': { path: '/agents', target: 'none' },
    'GET /mcp/servers': { path: '/mcp/servers', target: 'none' },
    'GET /mcp/stdio-catalog': { path: '/mcp/stdio-catalog', target: 'none' },
    'POST /relay/hello': { path: '/relay/hello', body: relayHello, target: 'none' },
    'POST /relay/poll': {
      path: '/relay/poll',
      body: { session: relayHello.session, running: [], servers: [], errors: [] },
      target: 'none',
    },
    'POST /relay/calls/:id/result': {
      path: '/relay/calls/some-call/result',
      body: { session: relayHello.session, outcome: 'result', result: { content: [] } },
      target: 'none',
    },
    'GET /relay/hosts': { path: '/relay/hosts', target: 'none' },
    'GET /mcp/workspaces/:id/servers': { path: `/mcp/workspaces/${ws}/servers`, target: 'container' },
    // Behind its authentication each MCP tool checks its own scope (test/mcp.test.ts).
    'POST /mcp': {
      path: '/mcp',
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_artifact', arguments: { ...art_, collection_id: ws } } },
      target: 'none',
    },
  };

  // Tokens that fail authentication.
  const { kid, privateKey } = await platform.services.signingKeys.signingKey();
  const claims = { sub: alice.userId, iss: platform.config.apiUri, kind: 'user' };
  const now = Math.floor(Date.now() / 1000);
  callers.noToken = new Api(platform.url);
  callers.malformed = new Api(platform.url, 'abc.def');
  callers.expired = new Api(
    platform.url,
    await new SignJWT({ ...claims, iat: now - 7200, exp: now - 3600 }).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey),
  );
  const forger = await generateKeyPair('RS256');
  callers.wrongSignature = new Api(
    platform.url,
    await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).setIssuedAt().setExpirationTime('1h').sign(forger.privateKey),
  );
  callers.algNone = new Api(platform.url, new UnsecuredJWT(claims).setIssuedAt().setExpirationTime('1h').encode());
  // Authenticated callers that must still be refused.
  callers.missingScope = await asServer(platform.url, await createServerCredential(alice, ['stream:read']));
  callers.filtered = await asServer(
    platform.url,
    await createServerCredential(alice, allScopes, { workspaces: [otherWs], collections: [otherCol] }),
  );
  callers.fullServer = await asServer(platform.url, await createServerCredential(alice, allScopes));
  callers.onBehalfOfNonOwner = await asServer(platform.url, broker);
});
after(() => platform.close());

/** Everything stored, but the audit log (which records refused on-behalf-of calls by design). */
async function snapshot(): Promise<string> {
  const names = (await platform.services.db.listCollections().toArray())
    .map((c) => c.name)
    .filter((n) => n !== 'audit_log')
    .sort();
  const parts = await Promise.all(
    names.map(async (n) => `${n}:${JSON.stringify(await platform.services.db.collection(n).find().sort({ _id: 1 }).toArray())}`),
  );
  return parts.join('\n');
}

/** A relay's first words (src/relay-protocol/wire.ts): refused before they are read, for every caller here. */
const relayHello = {
  session: '0196a3f0-0000-7000-8000-0000000000aa',
  version: '1',
  os: 'linux',
  arch: 'x64',
  sandbox: 'bwrap',
  policy: { commands: [], packages: [], repositories: [], folders: [], network: false },
};

const key = (r: RouteDef) => `${r.method.toUpperCase()} ${r.path}`;
const guarded = routes.filter((r) => r.access !== 'public');
const personOnly = (r: RouteDef) => r.access === 'human' || r.access === 'admin';

interface Case {
  caller: string;
  status: number;
  type?: string;
  applies: (r: RouteDef, s: Sample) => boolean;
  headers?: () => Record<string, string>;
}

const cases: Case[] = [
  { caller: 'noToken', status: 401, applies: () => true },
  { caller: 'malformed', status: 401, applies: () => true },
  { caller: 'expired', status: 401, applies: () => true },
  { caller: 'wrongSignature', status: 401, applies: () => true },
  { caller: 'algNone', status: 401, applies: () => true },
  { caller: 'missingScope', status: 403, applies: (r) => r.access !== 'authenticated' },
  { caller: 'fullServer', status: 403, type: 'human-required', applies: (r) => personOnly(r) },
  { caller: 'filtered', status: 404, type: 'not-found', applies: (r, s) => !personOnly(r) && s.target === 'container' },
  {
    caller: 'onBehalfOfNonOwner',
    status: 404,
    type: 'not-found',
    applies: (r, s) => !personOnly(r) && s.target !== 'none',
    headers: () => ({ 'x-on-behalf-of': carolId }),
  },
];

describe('access matrix', () => {
  it('has a sample request for every guarded route', () => {
    const missing = guarded.map(key).filter((k) => !samples[k]);
    assert.deepEqual(missing, [], 'add a sample for each new route');
  });

  for (const route of guarded) {
    it(`${key(route)} refuses every caller that may not use it, changing nothing`, async () => {
      const sample = samples[key(route)]!;
      const before = await snapshot();
      for (const c of cases.filter((c) => c.applies(route, sample))) {
        const reply = await callers[c.caller]!.request(route.method.toUpperCase(), sample.path, {
          body: sample.body,
          headers: c.headers?.(),
        });
        assert.equal(reply.status, c.status, `${c.caller}: ${reply.text}`);
        if (c.type) assert.equal(reply.body.type, `urn:platform:problem:${c.type}`, c.caller);
        // RFC 6750 §3.1: no credentials, no error code; a bad credential names its error.
        const challenge = c.caller === 'noToken' ? /^Bearer resource_metadata="/ : /^Bearer error=/;
        if (c.status === 401) assert.match(reply.headers.get('www-authenticate') ?? '', challenge, c.caller);
      }
      assert.equal(await snapshot(), before, 'nothing changed');
    });
  }
});
