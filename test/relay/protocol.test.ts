// The platform's side of the desktop host relay protocol (src/relay-protocol/wire.ts), spoken over
// HTTP the way the relay program speaks it, to reach orders of events the program itself makes rare:
// a second relay session taking the host over mid-call, a late answer after the call was decided, two
// polls racing for the same calls. Who may register a server on a host, and whose credential may
// connect a host's relay. The relay program itself is driven end to end in test/relay/relay.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { asServer } from '../helpers/credentials.js';
import { eventually, type Api, type Reply } from '../helpers/http.js';
import { invokeTool } from '../helpers/invoke.js';
import { mcpServerType } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { createHost, relayCredential } from '../helpers/relay-process.js';

const policy = { commands: ['npx'], packages: ['@modelcontextprotocol/server-everything'], repositories: [], folders: [], network: false };

let platform: TestPlatform;
let alice: Api & { userId: string };
let bob: Api & { userId: string };
let ws: string;
let host: string;
let relay: Api;

const hello = (api: Api, session: string) =>
  api.post('/relay/hello', { session, version: 'test', os: 'linux', arch: 'x64', sandbox: 'bwrap', policy });
const poll = (api: Api, session: string, running: { id: string }[] = []) =>
  api.post('/relay/poll', { session, running, servers: [], errors: [] });

/** Polls until a call is delivered. */
async function nextCall(api: Api, session: string): Promise<Record<string, any>> {
  for (let i = 0; i < 10; i++) {
    const r = await poll(api, session);
    assert.equal(r.status, 200, r.text);
    if (r.body.calls.length) return r.body.calls[0];
  }
  throw new Error('no call delivered');
}

async function registerOnHost(owner: Api, hostId: string, env: Record<string, unknown> = {}): Promise<Reply> {
  return owner.post('/artifacts', {
    title: 'everything on my laptop',
    content_type: mcpServerType,
    content: JSON.stringify({
      transport: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything', 'stdio'], env, host_id: hostId },
    }),
    collection_id: ws,
  });
}

before(async () => {
  platform = await startPlatform({}, { worker: true });
  alice = await platform.newUser();
  bob = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'relay' })).body.id;
  host = await createHost(alice, ws);
  relay = await asServer(platform.url, await relayCredential(alice, host, ws));
});
after(async () => {
  await platform?.close();
});

describe('registering a server on a host', () => {
  it('is allowed to whoever may change the host, without the operators stdio catalog or ALLOW_STDIO_MCP_SERVERS', async () => {
    const r = await registerOnHost(alice, host);
    assert.equal(r.status, 201, r.text);
  });

  it("is refused for a host of someone else's, for an artifact that is not a host, and for a host id that does not exist", async () => {
    const bobWs = (await bob.post('/workspaces', { name: 'b' })).body.id;
    const bobHost = await createHost(bob, bobWs);
    const note = (await alice.post('/artifacts', { title: 'n', content_type: 'text/plain', content: 'x', collection_id: ws })).body.id;
    for (const target of [bobHost, note, randomUUID()]) {
      const r = await registerOnHost(alice, target);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.invalid_params[0].name, 'content.transport.host_id');
    }
  });

  it('refuses a command outside SPEC §2.3 list and a repository transport without a host', async () => {
    const bad = await alice.post('/artifacts', {
      title: 's',
      content_type: mcpServerType,
      content: JSON.stringify({ transport: { type: 'stdio', command: 'bash', args: ['-c', 'id'], host_id: host } }),
      collection_id: ws,
    });
    assert.equal(bad.status, 400, bad.text);
    const repo = await alice.post('/artifacts', {
      title: 's',
      content_type: mcpServerType,
      content: JSON.stringify({ transport: { type: 'repository', owner_repo: 'acme/server', ref: 'main' } }),
      collection_id: ws,
    });
    assert.equal(repo.status, 400, repo.text);
    assert.match(JSON.stringify(repo.body.invalid_params), /host_id/);
  });
});

describe("a relay's credential", () => {
  it("of another person, naming this person's host, cannot connect to it", async () => {
    const bobWs = (await bob.post('/workspaces', { name: 'b2' })).body.id;
    const bobs = await asServer(platform.url, await relayCredential(bob, host, bobWs));
    const r = await hello(bobs, randomUUID());
    assert.equal(r.status, 403, r.text);
    assert.equal((await poll(bobs, randomUUID())).status, 403);
  });

  it("of a person the host's workspace is shared with, reading or writing, cannot take the host over", async () => {
    for (const flags of ['R', 'RCUD']) {
      const shared = (await alice.post('/workspaces', { name: `shared ${flags}` })).body.id;
      const sharedHost = await createHost(alice, shared, `shared host ${flags}`);
      assert.equal((await alice.post(`/workspaces/${shared}/shares`, { person_id: bob.userId, flags })).status, 200);
      assert.equal((await bob.get(`/artifacts/${sharedHost}`)).status, 200, 'bob sees the host');
      const bobs = await asServer(platform.url, await relayCredential(bob, sharedHost, shared));
      const r = await hello(bobs, randomUUID());
      assert.equal(r.status, 403, r.text);
      assert.match(r.body.detail, /another person's machine/);
      const listed = (await bob.get(`/relay/hosts?workspace_id=${shared}`)).body.items[0];
      assert.equal(listed.owner_id, alice.userId);
    }
  });

  it('bound to something that is not a host, or used by a person directly, is refused', async () => {
    const notHost = await asServer(platform.url, await relayCredential(alice, 'host-1', ws));
    assert.equal((await hello(notHost, randomUUID())).status, 403);
    assert.equal((await hello(alice, randomUUID())).status, 403);
  });
});

describe('a call through the relay protocol', () => {
  let server: string;
  let secretId: string;
  const secret = `s3cret-${randomUUID()}`;

  before(async () => {
    secretId = (await alice.post('/secrets', { name: 'token', value: secret })).body.id;
    const r = await registerOnHost(alice, host, { API_TOKEN: { secret_id: secretId } });
    assert.equal(r.status, 201, r.text);
    server = r.body.id;
  });

  it('fails at once, and cleanly, when the host has no relay connected', async () => {
    const otherHost = await createHost(alice, ws, 'desktop');
    const r = await registerOnHost(alice, otherHost);
    const result = await invokeTool(alice, r.body.id, 'echo', { message: 'hi' });
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent.error, 'relay_offline');
    assert.match(result.content[0].text, /not connected/);
  });

  it("goes to the host's relay with its secret resolved for it alone, and its answer comes back once", async () => {
    const session = randomUUID();
    assert.equal((await hello(relay, session)).status, 200);
    const pending = invokeTool(alice, server, 'echo', { message: 'through the relay' });
    const call = await nextCall(relay, session);
    assert.equal(call.op, 'tools/call');
    assert.deepEqual(call.params.arguments, { message: 'through the relay' });
    assert.equal(call.server.env.API_TOKEN, secret, 'the secret travels with the call');
    assert.deepEqual(call.server.transport, {
      type: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything', 'stdio'],
    });
    const answer = { content: [{ type: 'text', text: 'Echo: through the relay' }] };
    const first = await relay.post(`/relay/calls/${encodeURIComponent(call.id)}/result`, { session, outcome: 'result', result: answer });
    assert.equal(first.status, 204, first.text);
    const again = await relay.post(`/relay/calls/${encodeURIComponent(call.id)}/result`, {
      session,
      outcome: 'result',
      result: { content: [{ type: 'text', text: 'a second answer' }] },
    });
    assert.equal(again.status, 409);
    assert.match(again.body.type, /relay-call-decided$/);
    const result = await pending;
    assert.deepEqual(result.content, answer.content);
    // The secret is in no workflow payload: the call's history holds the arguments, never the env.
    const history = await platform.services.relay.calls.find({ server_id: server }).toArray();
    assert.ok(history.length >= 1 && !JSON.stringify(history).includes(secret), 'no secret is stored with the call');
  });

  it('is failed as lost, exactly once, when a new relay session takes the host over mid-call; the old session is told to stop', async () => {
    const old = randomUUID();
    assert.equal((await hello(relay, old)).status, 200);
    const pending = invokeTool(alice, server, 'echo', { message: 'lost' });
    const call = await nextCall(relay, old);
    const fresh = randomUUID();
    const took = await hello(relay, fresh);
    assert.equal(took.status, 200);
    assert.equal(took.body.lost_calls, 1);
    const result = await pending;
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent.error, 'relay_lost');
    const late = await relay.post(`/relay/calls/${encodeURIComponent(call.id)}/result`, {
      session: old,
      outcome: 'result',
      result: { content: [] },
    });
    assert.equal(late.status, 409, 'a late answer from the old session is not used');
    const stale = await poll(relay, old);
    assert.equal(stale.status, 409);
    assert.match(stale.body.type, /relay-session-replaced$/);
  });

  it('never runs a registration older than one already acknowledged: a call made before an edit goes out with the edit', async () => {
    const own = await registerOnHost(alice, host);
    const id = own.body.id;
    const session = randomUUID();
    assert.equal((await hello(relay, session)).status, 200);
    const pending = invokeTool(alice, id, 'echo', { message: 'after the edit' });
    const toolCalls = { server_id: id, op: 'tools/call' as const };
    await eventually(async () => (await platform.services.relay.calls.countDocuments(toolCalls)) === 1, 20_000, 'the call');
    // The registration changes while the call waits for the relay (the edit is acknowledged first).
    const edited = await alice.patch(`/artifacts/${id}`, {
      content: JSON.stringify({
        transport: {
          type: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-everything@2026.8.31', 'stdio'],
          host_id: host,
        },
      }),
    });
    assert.equal(edited.status, 200, edited.text);
    // The listing a registration starts goes out too: answered, so that only the tool call is left.
    let call = await nextCall(relay, session);
    while (call.op === 'catalog') {
      await relay.post(`/relay/calls/${encodeURIComponent(call.id)}/result`, {
        session,
        outcome: 'failure',
        failure: { kind: 'start', message: 'not listed in this test', retryable: false },
      });
      call = await nextCall(relay, session);
    }
    assert.equal(call.server.revision, edited.body.revision, 'delivered at the acknowledged revision');
    assert.deepEqual(call.server.transport.args, ['-y', '@modelcontextprotocol/server-everything@2026.8.31', 'stdio']);
    const calls = await platform.services.relay.calls.find(toolCalls).sort({ attempt: 1 }).toArray();
    assert.equal(calls.at(-1)!._id, call.id);
    await relay.post(`/relay/calls/${encodeURIComponent(call.id)}/result`, {
      session,
      outcome: 'result',
      result: { content: [{ type: 'text', text: 'Echo: after the edit' }] },
    });
    assert.equal((await pending).content[0].text, 'Echo: after the edit');
  });

  it('sends a call again when the answer that carried it never reached the relay', async () => {
    const session = randomUUID();
    assert.equal((await hello(relay, session)).status, 200);
    const pending = invokeTool(alice, server, 'echo', { message: 'carried twice' });
    const lost = await nextCall(relay, session); // as if the connection dropped while this answer was sent
    await new Promise((r) => setTimeout(r, 3500));
    const again = await poll(relay, session, []);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(
      again.body.calls.map((c: { id: string }) => c.id),
      [lost.id],
      'sent again, since the relay does not say it runs it',
    );
    assert.equal(again.body.calls[0].server.env.API_TOKEN, secret);
    const running = await relay.post('/relay/poll', { session, running: [{ id: lost.id }], servers: [], errors: [] });
    assert.equal(running.status, 200);
    assert.deepEqual(running.body.calls, [], 'not sent again once the relay says it runs it');
    await relay.post(`/relay/calls/${encodeURIComponent(lost.id)}/result`, {
      session,
      outcome: 'result',
      result: { content: [{ type: 'text', text: 'Echo: carried twice' }] },
    });
    assert.equal((await pending).content[0].text, 'Echo: carried twice');
  });

  it('hands each of many concurrent calls to exactly one of two racing polls', async () => {
    const session = randomUUID();
    assert.equal((await hello(relay, session)).status, 200);
    const n = 6;
    const pendings = Array.from({ length: n }, (_, i) => invokeTool(alice, server, 'echo', { message: `m${i}` }));
    const seen = new Map<string, number>();
    await eventually(
      async () => {
        const [a, b] = await Promise.all([poll(relay, session), poll(relay, session)]);
        for (const r of [a, b]) {
          assert.equal(r.status, 200, r.text);
          for (const call of r.body.calls) {
            seen.set(call.id, (seen.get(call.id) ?? 0) + 1);
            const text = `Echo: ${call.params.arguments.message}`;
            await relay.post(`/relay/calls/${encodeURIComponent(call.id)}/result`, {
              session,
              outcome: 'result',
              result: { content: [{ type: 'text', text }] },
            });
          }
        }
        return seen.size >= n;
      },
      60_000,
      'every call to be delivered',
    );
    assert.deepEqual([...seen.values()], Array(n).fill(1), 'no call was delivered twice');
    const results = await Promise.all(pendings);
    assert.deepEqual(
      results.map((r) => r.content[0].text),
      Array.from({ length: n }, (_, i) => `Echo: m${i}`),
    );
  });

  it("forgets a host's calls older than a week when its relay says hello, and keeps the recent ones", async () => {
    const { relay: store } = platform.services;
    const old = new Date(Date.now() - 8 * 24 * 3600_000);
    const record = (id: string, at: Date) => ({
      _id: id,
      lineage: id,
      attempt: 1,
      host_id: host,
      server_id: server,
      revision: 1,
      op: 'tools/call' as const,
      params: {},
      secrets_owner: alice.userId,
      timeout_ms: 1000,
      created_at: at,
      deadline_at: at,
      pending: false,
    });
    const [stale, recent] = [`stale-${randomUUID()}`, `recent-${randomUUID()}`];
    await store.addCall(record(stale, old));
    await store.addCall(record(recent, new Date()));
    for (const id of [stale, recent]) {
      await store.claim({ _id: id, host_id: host, session: randomUUID(), claimed_at: old });
      await store.decide({ _id: id, host_id: host, outcome: 'lost', at: old });
    }
    assert.equal((await hello(relay, randomUUID())).status, 200);
    assert.equal(await store.getCall(stale), null);
    assert.equal(await store.getResult(stale), null);
    assert.equal(await store.getClaim(stale), null);
    assert.ok(await store.getCall(recent));
    assert.ok(await store.getResult(recent));
  });

  it("a refusal by the relay's policy reaches the caller as a tool error naming it, and relay_status shows the relay", async () => {
    const session = randomUUID();
    assert.equal((await hello(relay, session)).status, 200);
    const pending = invokeTool(alice, server, 'echo', { message: 'refuse me' });
    const call = await nextCall(relay, session);
    const message = 'npx package @modelcontextprotocol/server-everything is not in policy.packages (~/.config/platform-relay/policy.json)';
    await relay.post(`/relay/calls/${encodeURIComponent(call.id)}/result`, {
      session,
      outcome: 'failure',
      failure: { kind: 'refused', message, retryable: false },
    });
    const result = await pending;
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent.error, 'refused');
    assert.match(result.content[0].text, /refused the call by its local policy: npx package/);
    // The poll records what the relay reports before it waits for calls (it is answered empty some 20 s later).
    const reporting = relay.post('/relay/poll', {
      session,
      running: [],
      servers: [],
      errors: [{ at: new Date().toISOString(), message, call_id: call.id }],
    });
    const status = await eventually(async () => {
      const r = await alice.get(`/relay/hosts?workspace_id=${ws}`);
      assert.equal(r.status, 200, r.text);
      return r.body.items.find((h: { host_id: string }) => h.host_id === host)?.errors.length ? r : undefined;
    });
    const mine = status.body.items.find((h: { host_id: string }) => h.host_id === host);
    assert.equal(mine.connected, true);
    assert.equal(mine.relay_version, 'test');
    assert.equal(mine.sandbox, 'bwrap');
    assert.deepEqual(mine.policy, policy);
    assert.equal(mine.errors.at(-1).message, message);
    const offline = status.body.items.find((h: { title: string }) => h.title === 'desktop');
    assert.equal(offline.connected, false);
    assert.equal(offline.last_seen_at, null);
    // Bob sees none of Alice's hosts.
    const bobs = await bob.get('/relay/hosts');
    assert.equal(bobs.status, 200);
    assert.ok(!bobs.body.items.some((h: { host_id: string }) => h.host_id === host));
    // Shared with Bob: he sees the relay connected, never its errors or the folders of Alice's machine.
    assert.equal((await alice.post(`/workspaces/${ws}/shares`, { person_id: bob.userId, flags: 'R' })).status, 200);
    const shared = (await bob.get(`/relay/hosts?workspace_id=${ws}`)).body.items.find((h: { host_id: string }) => h.host_id === host);
    assert.equal(shared.connected, true);
    assert.deepEqual([shared.errors, shared.policy], [[], null]);
    assert.equal((await reporting).status, 200);
  });
});
