// A subscription's delivery retries (src/workflows/subscription-delivery.ts) on the time-skipping
// test server, with the shipped retry settings: a webhook that keeps failing is retried with
// exponential backoff (5 s doubling, capped at 10 min) and the subscription pauses after 12 attempts;
// one that recovers gets the event, and the ones after it, in order. The 40 minutes of backoff run in
// seconds. Events come from artifacts written through the API, as in production.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { eventually, type Api } from '../helpers/http.js';
import { registerServer } from '../helpers/mcp-servers.js';
import { startTimeSkippingPlatform, type TimeSkippingPlatform } from './time-skipping.js';

const initialMs = 5_000;
const maxMs = 600_000;
const attempts = 12;

let platform: TimeSkippingPlatform;
let alice: Api & { userId: string };
let serverId: string;
const receivers: Receiver[] = [];

/** A real HTTP receiver on loopback: `answer` picks each request's status; each request is kept with the test server's clock. */
class Receiver {
  readonly requests: { artifact: string; status: number; at: number }[] = [];
  answer: (nth: number) => number = () => 200;
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const at = await platform.now();
        const { artifact_id: artifact } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { artifact_id: string };
        const status = this.answer(this.requests.length);
        this.requests.push({ artifact, status, at });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hook`;
    return this;
  }

  close() {
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

before(async () => {
  platform = await startTimeSkippingPlatform({
    MCP_OUTBOUND_ALLOW: '127.0.0.0/8',
    SUBSCRIPTION_RETRY_INITIAL_MS: String(initialMs),
    SUBSCRIPTION_RETRY_MAX_MS: String(maxMs),
    SUBSCRIPTION_PAUSE_AFTER_ATTEMPTS: String(attempts),
    // The idle poll is a safety net; here it would only add workflow tasks to every skipped day.
    SUBSCRIPTION_POLL_SECONDS: '86400',
  });
  alice = await platform.newUser();
  const serverWs = (await alice.post('/workspaces', { name: 'servers' })).body.id;
  serverId = await registerServer(alice, serverWs, { transport: { type: 'http', url: 'http://127.0.0.1:9/mcp' } }, 'subscriber');
});
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await platform.close();
});

/** A watched workspace with a subscription to `hook`, and `count` artifacts written into it (their ids). */
async function subscribedWrites(hook: Receiver, count: number): Promise<{ subId: string; artifacts: string[] }> {
  const ws = (await alice.post('/workspaces', { name: 'watched' })).body.id as string;
  const sub = await alice.post(`/workspaces/${ws}/subscriptions`, { url: hook.url, server_id: serverId, kinds: ['artifact_created'] });
  assert.equal(sub.status, 201, sub.text);
  const artifacts: string[] = [];
  for (let i = 0; i < count; i++) {
    const made = await alice.post('/artifacts', {
      title: `note ${i}`,
      content_type: 'text/plain',
      content: `note ${i}`,
      collection_id: ws,
    });
    assert.equal(made.status, 201, made.text);
    artifacts.push(made.body.id);
  }
  await eventually(async () => hook.requests.length > 0, 30_000, 'the first delivery attempt');
  // The indexing run polls every minute: stopped, or it would replay each skipped minute.
  await platform.stopIndexing();
  return { subId: sub.body.id, artifacts };
}

async function receiver(): Promise<Receiver> {
  const r = await new Receiver().start();
  receivers.push(r);
  return r;
}

/** The backoff before retry `n` (1 = the first retry of the event alone): 5 s doubling, capped at 10 min. */
const backoff = (n: number) => Math.min(initialMs * 2 ** (n - 1), maxMs);

/** The gaps between consecutive requests, on the test server's clock. */
const gaps = (hook: Receiver) => hook.requests.slice(1).map((r, i) => r.at - hook.requests[i]!.at);

function assertBackoff(observed: number[]) {
  // The page's try, then the event alone at once, then each retry after its backoff.
  assert.ok(observed[0]! < 1_000, `the event alone follows the page's try at once (${observed[0]} ms)`);
  observed.slice(1).forEach((gap, i) => {
    const expected = backoff(i + 1);
    assert.ok(gap >= expected && gap < expected + 2_000, `retry ${i + 1} came ${gap} ms after the attempt before, not ${expected} ms`);
  });
}

describe('subscription delivery retries (time-skipping)', () => {
  it(`retries with exponential backoff and pauses after ${attempts} attempts`, async () => {
    const hook = await receiver();
    hook.answer = () => 503;
    const { subId, artifacts } = await subscribedWrites(hook, 2);
    // 5 + 10 + 20 + ... + 600 s: about 41 minutes of retries.
    await platform.skip(45 * 60_000);
    const paused = await eventually(
      async () => {
        const shown = (await alice.get(`/subscriptions/${subId}`)).body;
        return shown.state === 'paused' ? shown : undefined;
      },
      30_000,
      'the pause',
    );
    assert.equal(paused.failures, attempts);
    assert.match(paused.pause_reason, /503/);
    assert.equal(hook.requests.length, attempts, `${attempts} attempts, then it gave up`);
    assert.ok(
      hook.requests.every((r) => r.artifact === artifacts[0]),
      "all on the first write's event: nothing after it was sent",
    );
    assertBackoff(gaps(hook));
    // Paused: a day later nothing more was sent.
    await platform.skip(86_400_000);
    assert.equal(hook.requests.length, attempts);
  });

  it('delivers once the webhook recovers, then the events after it, in order', async () => {
    const hook = await receiver();
    hook.answer = (nth) => (nth < 5 ? 500 : 200);
    const { subId, artifacts } = await subscribedWrites(hook, 3);
    await platform.skip(10 * 60_000);
    await eventually(async () => hook.requests.filter((r) => r.status === 200).length === 3, 30_000, 'three deliveries');
    assert.deepEqual(
      hook.requests.map((r) => r.status),
      [500, 500, 500, 500, 500, 200, 200, 200],
    );
    assertBackoff(gaps(hook).slice(0, 5));
    assert.deepEqual(
      hook.requests.filter((r) => r.status === 200).map((r) => r.artifact),
      artifacts,
      "each write's event once, in order, the failing one first",
    );
    const shown = (await alice.get(`/subscriptions/${subId}`)).body;
    assert.equal(shown.state, 'active');
    assert.equal(shown.failures, 0);
  });
});
