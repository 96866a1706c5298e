// Tier 3 subscriptions (issue #21): signed webhooks to a real local HTTP receiver, retries in order,
// pause and resume, filters, access, and the SSRF guard on the target URL.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { v7 as uuidv7 } from 'uuid';
import { verifyWebhook } from '../../src/events/subscriptions/signature.js';
import { SubscriptionWorkflows } from '../../src/workflow-clients/subscriptions.js';
import { SubscriptionStore } from '../../src/store/subscriptions.js';
import { subscriptionWorkflowId } from '../../src/workflows/contracts/ids.js';
import { asServer, createApiKey } from '../helpers/credentials.js';
import { eventually, type Api } from '../helpers/http.js';
import { registerServer } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

interface Received {
  headers: Record<string, string>;
  body: string;
  status: number;
}

/** A real HTTP receiver on loopback: `answer` picks each request's status; every request is kept. */
class Receiver {
  readonly requests: Received[] = [];
  answer: (body: Record<string, unknown>, nth: number) => number = () => 200;
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const parsed = JSON.parse(body) as Record<string, unknown>;
        const nth = this.requests.filter((r) => JSON.parse(r.body).id === parsed.id).length;
        const status = this.answer(parsed, nth);
        this.requests.push({ headers: req.headers as Record<string, string>, body, status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    const address = this.server.address() as { port: number };
    this.url = `http://127.0.0.1:${address.port}/hook`;
    return this;
  }

  /** Ids of the events accepted (2xx), in arrival order. */
  delivered(): string[] {
    return this.requests.filter((r) => r.status < 300).map((r) => JSON.parse(r.body).id as string);
  }

  close() {
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

let platform: TestPlatform;
let alice: Api & { userId: string };
let bob: Api & { userId: string };
let serverWs: string;
let serverId: string;
let workflows: SubscriptionWorkflows;
const receivers: Receiver[] = [];

before(async () => {
  platform = await startPlatform({
    MCP_OUTBOUND_ALLOW: '127.0.0.0/8',
    SUBSCRIPTION_RETRY_INITIAL_MS: '50',
    SUBSCRIPTION_RETRY_MAX_MS: '200',
    SUBSCRIPTION_PAUSE_AFTER_ATTEMPTS: '5',
    SUBSCRIPTION_POLL_SECONDS: '2',
  });
  alice = await platform.newUser();
  bob = await platform.newUser();
  serverWs = (await alice.post('/workspaces', { name: 'servers' })).body.id;
  serverId = await registerServer(alice, serverWs, { transport: { type: 'http', url: 'http://127.0.0.1:9/mcp' } }, 'tier 3');
  workflows = new SubscriptionWorkflows(() => platform.services.temporal, platform.config);
});
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await platform.close();
});

async function receiver(): Promise<Receiver> {
  const r = await new Receiver().start();
  receivers.push(r);
  return r;
}

/** A workspace of alice's own whose events the tests record by hand, with their seq (no artifact writes in it). */
async function workspace(): Promise<string> {
  return (await alice.post('/workspaces', { name: 'watched' })).body.id;
}

interface Recorded {
  id: string;
  seq: number;
}

/** Records events as the event workflow does once it numbers them (seq), then wakes the subscriptions like notifySubscriptions. */
async function record(ws: string, events: { kind?: string; content_type?: string }[]): Promise<Recorded[]> {
  const coll = platform.services.db.collection('events');
  const [last] = await coll.find({ workspace_id: ws }).sort({ seq: -1 }).limit(1).toArray();
  let seq = (last?.seq as number | undefined) ?? 0;
  const docs = events.map((e) => ({
    _id: uuidv7(),
    kind: e.kind ?? 'artifact_created',
    workspace_id: ws,
    artifact_id: uuidv7(),
    actor: alice.userId,
    occurred_at: new Date().toISOString(),
    recorded_at: new Date(),
    seq: ++seq,
    ...(e.content_type ? { content_type: e.content_type } : {}),
    ...(e.kind === 'artifact_updated' ? { changed: ['content'] } : {}),
  }));
  await coll.insertMany(docs as never[]);
  for (const sub of await new SubscriptionStore(platform.services.db).activeIn(ws)) await workflows.poke(sub, seq);
  return docs.map((d) => ({ id: d._id, seq: d.seq }));
}

async function subscribe(ws: string, url: string, extra: Record<string, unknown> = {}, as: Api = alice) {
  const reply = await as.post(`/workspaces/${ws}/subscriptions`, { url, server_id: serverId, ...extra });
  assert.equal(reply.status, 201, reply.text);
  return reply.body as { id: string; secret: string; state: string; cursor: number };
}

/** Standard Webhooks verification, written out here independently of the platform's signer. */
function verifies(secret: string, r: { headers: Record<string, string>; body: string }): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`)
    .digest('base64');
  return r.headers['webhook-signature']!.split(' ').includes(`v1,${expected}`);
}

describe('subscription webhooks', () => {
  it('signs each delivery (Standard Webhooks); a tampered body fails; the body is the event as the API presents it', async () => {
    const ws = await workspace();
    const hook = await receiver();
    const sub = await subscribe(ws, hook.url);
    assert.match(sub.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(sub.state, 'active');
    const events = await record(ws, [{ content_type: 'text/plain' }, { kind: 'artifact_updated', content_type: 'text/plain' }, {}]);
    await eventually(async () => hook.delivered().length === 3, 20_000, 'three deliveries');
    assert.deepEqual(
      hook.delivered(),
      events.map((e) => e.id),
    );
    const listed = (await alice.get(`/workspaces/${ws}/events`)).body.items as Record<string, unknown>[];
    for (const r of hook.requests) {
      assert.ok(verifies(sub.secret, r), 'the signature verifies with the secret');
      assert.ok(
        verifyWebhook(
          sub.secret,
          { id: r.headers['webhook-id']!, timestamp: r.headers['webhook-timestamp']!, signature: r.headers['webhook-signature']! },
          r.body,
        ),
      );
      const tampered = r.body.replace('"kind":"artifact_', '"kind":"artifact_x');
      assert.notEqual(tampered, r.body);
      assert.equal(verifies(sub.secret, { ...r, body: tampered }), false, 'a tampered body fails');
      assert.equal(verifies('whsec_' + Buffer.alloc(32).toString('base64'), r), false, 'another secret fails');
      const body = JSON.parse(r.body);
      assert.equal(r.headers['webhook-id'], body.id, 'webhook-id is the event id');
      assert.equal(r.headers['content-type'], 'application/json');
      const presented = listed.find((e) => e.id === body.id)!;
      for (const [k, v] of Object.entries(presented)) assert.deepEqual(body[k], v, `body.${k} as GET /workspaces/{id}/events presents it`);
    }
    const deliveries = await eventually(async () => {
      const reply = await alice.get(`/subscriptions/${sub.id}/deliveries`);
      return reply.body.items.length === 3 ? reply.body.items : undefined;
    });
    assert.deepEqual(
      deliveries.map((d: { event_id: string }) => d.event_id),
      events.map((e) => e.id).reverse(),
    );
    assert.ok(
      deliveries.every(
        (d: { attempts: number; outcome: string; status_code: number }) =>
          d.attempts === 1 && d.outcome === 'delivered' && d.status_code === 200,
      ),
    );
    await eventually(async () => (await alice.get(`/subscriptions/${sub.id}`)).body.cursor === 3, 10_000, 'the stored cursor');
    const shown = (await alice.get(`/subscriptions/${sub.id}`)).body;
    assert.equal(shown.secret, undefined, 'the secret is shown once');
    assert.ok(!platform.logs.join('').includes(sub.secret.slice(6)), 'the secret is in no log line');
    assert.ok(!(await alice.get('/secrets')).text.includes(sub.id), "the signing secret is not among the person's secrets");
  });

  it('rotates its secret: the new one is shown once, and both sign until the old one expires', async () => {
    const ws = await workspace();
    const hook = await receiver();
    const sub = await subscribe(ws, hook.url);
    const rotated = await alice.post(`/subscriptions/${sub.id}/rotate-secret`);
    assert.equal(rotated.status, 200, rotated.text);
    assert.match(rotated.body.secret, /^whsec_/);
    assert.notEqual(rotated.body.secret, sub.secret);
    assert.equal((await bob.post(`/subscriptions/${sub.id}/rotate-secret`)).status, 404);
    await record(ws, [{}]);
    await eventually(async () => hook.delivered().length === 1, 20_000, 'a delivery');
    const [r] = hook.requests;
    assert.equal(r!.headers['webhook-signature']!.split(' ').length, 2);
    assert.ok(verifies(rotated.body.secret, r!), 'the new secret verifies');
    assert.ok(verifies(sub.secret, r!), 'the old secret still verifies during the overlap');
  });

  it('retries with backoff: 500 three times then 200 delivers every event in order, with no gap', async () => {
    const ws = await workspace();
    const hook = await receiver();
    let first: string | undefined;
    hook.answer = (body, nth) => {
      first ??= body.id as string;
      return body.id === first && nth < 3 ? 500 : 200;
    };
    const sub = await subscribe(ws, hook.url);
    const events = await record(ws, [{}, {}, {}, {}, {}]);
    await eventually(async () => hook.delivered().length === 5, 30_000, 'five deliveries');
    assert.deepEqual(
      hook.delivered(),
      events.map((e) => e.id),
    );
    assert.deepEqual(
      hook.requests.map((r) => r.status),
      [500, 500, 500, 200, 200, 200, 200, 200],
      'nothing after the failing event was sent before it was delivered',
    );
    const deliveries = (await alice.get(`/subscriptions/${sub.id}/deliveries`)).body.items;
    const head = deliveries.find((d: { event_id: string }) => d.event_id === events[0]!.id);
    assert.equal(head.attempts, 4);
    assert.equal(head.outcome, 'delivered');
    assert.equal((await alice.get(`/subscriptions/${sub.id}`)).body.state, 'active');
  });

  it('pauses after repeated failure (API and search attribute); resume delivers the backlog in order', async () => {
    const ws = await workspace();
    const hook = await receiver();
    hook.answer = () => 503;
    const sub = await subscribe(ws, hook.url);
    const events = await record(ws, [{}, {}]);
    const paused = await eventually(
      async () => {
        const shown = (await alice.get(`/subscriptions/${sub.id}`)).body;
        return shown.state === 'paused' ? shown : undefined;
      },
      30_000,
      'the pause',
    );
    assert.match(paused.pause_reason, /503/);
    assert.equal(paused.failures, 5);
    assert.equal(hook.requests.length, 5, 'five attempts, all on the first event');
    const findByState = async (state: string) => {
      for await (const run of platform.services.temporal.workflow.list({
        query: `WorkflowId = "${subscriptionWorkflowId(sub.id)}" AND SubscriptionState = "${state}" AND ExecutionStatus = "Running"`,
      }))
        return run;
      return undefined;
    };
    await eventually(() => findByState('paused'), 20_000, 'SubscriptionState = "paused"');
    const failed = (await alice.get(`/subscriptions/${sub.id}/deliveries`)).body.items[0];
    assert.deepEqual([failed.event_id, failed.outcome, failed.status_code, failed.attempts], [events[0]!.id, 'failed', 503, 5]);

    // More events while it is paused: nothing is sent until the resume.
    events.push(...(await record(ws, [{}, {}])));
    assert.equal((await alice.post(`/subscriptions/${bob.userId}/resume`)).status, 404);
    hook.answer = () => 200;
    const resumed = await alice.post(`/subscriptions/${sub.id}/resume`);
    assert.equal(resumed.status, 202, resumed.text);
    await eventually(async () => hook.delivered().length === 4, 30_000, 'the backlog');
    assert.deepEqual(
      hook.delivered(),
      events.map((e) => e.id),
    );
    await eventually(
      async () => {
        const shown = (await alice.get(`/subscriptions/${sub.id}`)).body;
        return shown.state === 'active' && shown.failures === 0 && shown.cursor === 4;
      },
      10_000,
      'active again, past the backlog',
    );
    await eventually(() => findByState('active'), 20_000, 'SubscriptionState = "active"');
    const again = await alice.post(`/subscriptions/${sub.id}/resume`);
    assert.equal(again.status, 409);
    assert.equal(again.body.type, 'urn:platform:problem:subscription-not-paused');
  });

  it('delivers only the kinds and content types it asked for, and moves its cursor past the others', async () => {
    const ws = await workspace();
    const hook = await receiver();
    const sub = await subscribe(ws, hook.url, { kinds: ['artifact_updated'], content_types: ['text/*', 'application/pdf'] });
    const events = await record(ws, [
      { kind: 'artifact_created', content_type: 'text/plain' },
      { kind: 'artifact_updated', content_type: 'text/markdown' },
      { kind: 'artifact_updated', content_type: 'application/json' },
      { kind: 'artifact_deleted', content_type: 'text/plain' },
      { kind: 'artifact_updated' },
      { kind: 'artifact_updated', content_type: 'application/pdf' },
      { kind: 'artifact_created', content_type: 'application/pdf' },
    ]);
    await eventually(async () => (await alice.get(`/subscriptions/${sub.id}`)).body.cursor === 7, 20_000, 'the cursor past every event');
    assert.deepEqual(hook.delivered(), [events[1]!.id, events[5]!.id]);
    assert.equal(hook.requests.length, 2);
  });

  it('deletes: the run ends, the secret is gone, and nothing more is delivered', async () => {
    const ws = await workspace();
    const hook = await receiver();
    const sub = await subscribe(ws, hook.url);
    const stored = (await new SubscriptionStore(platform.services.db).get(sub.id))!;
    const secretsBefore = await platform.services.db.collection('secrets').countDocuments();
    assert.equal((await bob.delete(`/subscriptions/${sub.id}`)).status, 404);
    assert.equal((await alice.delete(`/subscriptions/${sub.id}`)).status, 204);
    assert.equal((await alice.get(`/subscriptions/${sub.id}`)).status, 404);
    assert.equal(await platform.services.db.collection('secrets').countDocuments(), secretsBefore - 1);
    const run = await platform.services.temporal.workflow.getHandle(subscriptionWorkflowId(sub.id)).describe();
    assert.equal(run.status.name, 'TERMINATED');
    const [late] = await record(ws, [{}]);
    // A notifier that read the subscription just before the delete pokes it: signal-with-start starts
    // a run again, which finds the subscription gone on its first read and ends.
    await workflows.poke(stored, late!.seq);
    await eventually(async () => {
      const d = await platform.services.temporal.workflow.getHandle(subscriptionWorkflowId(sub.id)).describe();
      return d.status.name !== 'RUNNING';
    });
    assert.equal(hook.requests.length, 0);
  });
});

describe('subscription access', () => {
  it("hides another person's workspace and subscriptions (404), and needs the scope (403)", async () => {
    const ws = await workspace();
    const hook = await receiver();
    const sub = await subscribe(ws, hook.url);
    for (const path of [`/subscriptions/${sub.id}`, `/subscriptions/${sub.id}/deliveries`]) {
      assert.equal((await bob.get(path)).status, 404, path);
    }
    const bobs = await bob.post(`/workspaces/${ws}/subscriptions`, { url: hook.url, server_id: serverId });
    assert.equal(bobs.status, 404);
    assert.equal(bobs.body.type, 'urn:platform:problem:not-found');
    assert.equal((await bob.get(`/workspaces/${ws}/subscriptions`)).status, 404);
    // Bob's own workspace, alice's server: he cannot see the server.
    const bobWs = (await bob.post('/workspaces', { name: 'bob' })).body.id;
    assert.equal((await bob.post(`/workspaces/${bobWs}/subscriptions`, { url: hook.url, server_id: serverId })).status, 404);

    const reader = alice.withToken((await createApiKey(alice, ['artifact:read'])).key);
    const noScope = await reader.post(`/workspaces/${ws}/subscriptions`, { url: hook.url, server_id: serverId });
    assert.equal(noScope.status, 403);
    assert.equal(noScope.body.type, 'urn:platform:problem:insufficient-scope');
    assert.equal((await reader.get(`/subscriptions/${sub.id}`)).status, 403);
    const key = alice.withToken((await createApiKey(alice, ['events:subscribe'])).key);
    const byKey = await key.post(`/workspaces/${ws}/subscriptions`, { url: hook.url, server_id: serverId });
    assert.equal(byKey.status, 403, 'an API key is neither the person nor the server');
    assert.equal(byKey.body.type, 'urn:platform:problem:forbidden');

    const listed = (await alice.get(`/workspaces/${ws}/subscriptions`)).body.items;
    assert.deepEqual(
      listed.map((s: { id: string }) => s.id),
      [sub.id],
    );
  });

  it("lets the server's own credential subscribe for its server, and no other", async () => {
    const ws = await workspace();
    const hook = await receiver();
    const credential = async (owner: Api, server: string, scopes: string[]) => {
      const reply = await owner.post('/server-credentials', {
        client_id: `sub-${uuidv7().slice(-8)}`,
        name: 'tier 3',
        server_id: server,
        host_id: 'h',
        scopes,
      });
      assert.equal(reply.status, 201, reply.text);
      return asServer(platform.url, { client_id: reply.body.client_id, client_secret: reply.body.client_secret });
    };
    const server = await credential(alice, serverId, ['events:subscribe']);
    const made = await server.post(`/workspaces/${ws}/subscriptions`, { url: hook.url, kinds: ['artifact_created'] });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.server_id, serverId);
    assert.equal(made.body.owner_id, alice.userId);
    assert.equal(made.body.created_by.kind, 'server_credential');
    assert.equal((await server.get(`/subscriptions/${made.body.id}`)).status, 200);
    assert.equal((await alice.get(`/subscriptions/${made.body.id}`)).status, 200, 'its owner sees it');
    const events = await record(ws, [{}]);
    await eventually(async () => hook.delivered()[0] === events[0]!.id, 20_000, 'the server credential subscription delivers');
    // A person's subscription to the same server is not the credential's to manage.
    const personal = await subscribe(ws, hook.url);
    assert.equal((await server.get(`/subscriptions/${personal.id}`)).status, 200, 'same owner, same server');
    const otherServer = await registerServer(alice, serverWs, { transport: { type: 'http', url: 'http://127.0.0.1:9/other' } }, 'other');
    const other = await subscribe(ws, hook.url, { server_id: otherServer });
    assert.equal((await server.get(`/subscriptions/${other.id}`)).status, 404, 'another server');
    assert.equal((await server.post(`/workspaces/${ws}/subscriptions`, { url: hook.url, server_id: otherServer })).status, 403);

    // Bob's credential naming alice's server is not first-party: refused.
    const bobWs = (await bob.post('/workspaces', { name: 'bob' })).body.id;
    const stranger = await credential(bob, serverId, ['events:subscribe']);
    const refused = await stranger.post(`/workspaces/${bobWs}/subscriptions`, { url: hook.url });
    assert.equal(refused.status, 403, refused.text);
    // Without the scope.
    const unscoped = await credential(alice, serverId, ['artifact:read']);
    assert.equal((await unscoped.post(`/workspaces/${ws}/subscriptions`, { url: hook.url })).status, 403);
  });

  it('stops delivering when the subscriber loses the workspace grant: it pauses, and nothing is sent', async () => {
    const ws = await workspace();
    const hook = await receiver();
    const bobWs = (await bob.post('/workspaces', { name: 'bob servers' })).body.id;
    const bobServer = await registerServer(bob, bobWs, { transport: { type: 'http', url: 'http://127.0.0.1:9/bob' } }, 'bob');
    assert.equal((await bob.post(`/workspaces/${ws}/subscriptions`, { url: hook.url, server_id: bobServer })).status, 404);
    assert.equal((await alice.post(`/workspaces/${ws}/shares`, { person_id: bob.userId, flags: 'R' })).status, 200);
    const sub = await subscribe(ws, hook.url, { server_id: bobServer }, bob);
    const [first] = await record(ws, [{}]);
    await eventually(async () => hook.delivered()[0] === first!.id, 20_000, 'a delivery while shared');
    assert.equal((await alice.delete(`/workspaces/${ws}/shares/${bob.userId}`)).status, 204);
    await record(ws, [{}, {}]);
    const paused = await eventually(async () => {
      const doc = await new SubscriptionStore(platform.services.db).get(sub.id);
      return doc?.state === 'paused' ? doc : undefined;
    });
    assert.match(paused.pause_reason!, /no longer readable/);
    assert.equal(hook.requests.length, 1, 'nothing after the grant was withdrawn');
    assert.equal((await bob.get(`/subscriptions/${sub.id}`)).status, 404, 'nor can bob see it now');
  });

  it('answers problem+json for bad input, and refuses private addresses through the SSRF guard', async () => {
    const ws = await workspace();
    const post = (body: unknown) => alice.post(`/workspaces/${ws}/subscriptions`, body);
    const cases: [unknown, string][] = [
      [{ url: 'https://10.0.0.7/hook', server_id: serverId }, 'url'],
      [{ url: 'https://169.254.169.254/latest', server_id: serverId }, 'url'],
      [{ url: 'https://[fd00::1]/hook', server_id: serverId }, 'url'],
      [{ url: 'http://192.168.1.1/hook', server_id: serverId }, 'url'],
      [{ url: 'http://example.com/hook', server_id: serverId }, 'url'],
      [{ url: 'https://user:pw@127.0.0.1/hook', server_id: serverId }, 'url'],
      [{ url: 'ftp://127.0.0.1/hook', server_id: serverId }, 'url'],
      [{ url: 'not a url', server_id: serverId }, 'url'],
      [{ url: 'https://nowhere.invalid/hook', server_id: serverId }, 'url'],
      [{ url: 'https://127.0.0.1/hook' }, 'server_id'],
      [{ url: 'https://127.0.0.1/hook', server_id: 'x' }, 'server_id'],
      [{ url: 'https://127.0.0.1/hook', server_id: serverId, kinds: ['artifact_moved'] }, 'kinds.0'],
      [{ url: 'https://127.0.0.1/hook', server_id: serverId, kinds: [] }, 'kinds'],
      [{ url: 'https://127.0.0.1/hook', server_id: serverId, content_types: ['not a type'] }, 'content_types.0'],
      [{ url: 'https://127.0.0.1/hook', server_id: serverId, secret: 'mine' }, 'secret'],
    ];
    for (const [body, param] of cases) {
      const reply = await post(body);
      assert.equal(reply.status, 400, `${JSON.stringify(body)}: ${reply.text}`);
      assert.match(reply.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(reply.body.type, 'urn:platform:problem:validation-error');
      assert.ok(
        reply.body.invalid_params.some((p: { name: string }) => p.name === param),
        `${JSON.stringify(body)} names ${param}: ${reply.text}`,
      );
    }
    const guarded = await post({ url: 'https://10.0.0.7/hook', server_id: serverId });
    assert.match(guarded.body.detail, /MCP_OUTBOUND_ALLOW/);
    const notServer = (await alice.post('/artifacts', { title: 'n', content_type: 'text/plain', content: 'n', collection_id: ws })).body.id;
    const wrongType = await post({ url: 'https://127.0.0.1/hook', server_id: notServer });
    assert.equal(wrongType.status, 409);
    assert.equal(wrongType.body.type, 'urn:platform:problem:not-an-mcp-server');
    assert.equal((await alice.get('/subscriptions/not-a-uuid')).status, 400);
    assert.equal((await alice.get(`/subscriptions/${uuidv7()}/deliveries?limit=101`)).status, 400);
    assert.equal(await platform.services.db.collection('subscriptions').countDocuments({ workspace_id: ws }), 0, 'nothing was made');
  });
});

describe('subscription end to end', () => {
  // Through the whole pipeline of issue #21: the outbox, the event workflow that numbers events (seq)
  // and calls dispatchWorkspaceEvents → notifySubscriptions, and this subscription's workflow.
  it('delivers an artifact written through the API to the subscriber', async () => {
    const ws = await workspace();
    const hook = await receiver();
    const sub = await subscribe(ws, hook.url, { kinds: ['artifact_created'] });
    const made = await alice.post('/artifacts', { title: 'hello', content_type: 'text/plain', content: 'hi', collection_id: ws });
    assert.equal(made.status, 201);
    await eventually(async () => hook.requests.length > 0, 30_000, 'the write delivered');
    const body = JSON.parse(hook.requests[0]!.body);
    assert.equal(body.kind, 'artifact_created');
    assert.equal(body.artifact_id, made.body.id);
    assert.ok(verifies(sub.secret, hook.requests[0]!));
    const presented = (await alice.get(`/workspaces/${ws}/events`)).body.items.find((e: { id: string }) => e.id === body.id);
    assert.deepEqual(body, presented, 'the body is the event exactly as GET /workspaces/{id}/events presents it');
    assert.equal(typeof body.seq, 'number');
  });
});
