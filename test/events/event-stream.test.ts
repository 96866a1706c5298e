// GET /workspaces/{id}/events/stream: events arrive as they are recorded, a resume delivers exactly the
// missed ones, access is that of GET /workspaces/{id}/events, and a client that leaves frees its stream.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Server } from 'node:http';
import { createApp } from '../../src/api/app.js';
import { eventStreams, eventStreamTiming } from '../../src/api/routes/event-stream.js';
import { EventTail, type EventSource } from '../../src/events/tail.js';
import type { EventDoc } from '../../src/store/events.js';
import { uuidv7Floor } from '../../src/store/search-changes.js';
import { Api, eventually } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let admin: Api;

before(async () => {
  platform = await startPlatform();
  admin = await platform.admin();
});
after(() => platform.close());

interface Message {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
}

/** A Server-Sent Events reader over fetch, as a console or a tool reads it (fetch can send Authorization). */
class Stream {
  readonly aborter = new AbortController();
  private buffer = '';
  private reader?: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  response?: Response;

  async open(api: Api, path: string, headers: Record<string, string> = {}): Promise<Response> {
    this.response = await fetch(api.url + path, {
      headers: { ...(api.token ? { authorization: `Bearer ${api.token}` } : {}), ...headers },
      signal: this.aborter.signal,
    });
    if (this.response.ok) this.reader = this.response.body!.getReader();
    return this.response;
  }

  /** The next block (messages and comment-only blocks alike). */
  private async block(): Promise<string> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        return block;
      }
      const { value, done } = await this.reader!.read();
      if (done) throw new Error('the stream ended');
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  /** The next message with fields (comments alone are skipped). */
  async next(): Promise<Message> {
    for (;;) {
      const message: Message = {};
      for (const line of (await this.block()).split('\n')) {
        const m = /^(id|event|data|retry): ?(.*)$/.exec(line);
        if (m) message[m[1] as keyof Message] = m[2];
      }
      if (Object.keys(message).length > 0) return message;
    }
  }

  /** The next event message (after the retry hint). */
  async event(): Promise<{ id: string; event: string; data: Record<string, unknown> }> {
    for (;;) {
      const m = await this.next();
      if (m.data !== undefined) return { id: m.id!, event: m.event!, data: JSON.parse(m.data) };
    }
  }

  close(): void {
    this.aborter.abort();
  }
}

async function workspace(api: Api = admin): Promise<string> {
  return (await api.post('/workspaces', { name: 'live' })).body.id;
}

async function create(ws: string, title: string): Promise<string> {
  const reply = await admin.post('/artifacts', { title, content_type: 'text/plain', content: title, collection_id: ws });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id;
}

/** The workspace's recorded events, oldest first, once there are `count`. */
async function recorded(ws: string, count: number): Promise<{ id: string; artifact_id: string }[]> {
  return eventually(
    async () => {
      const items = (await admin.get(`/workspaces/${ws}/events?limit=200`)).body.items as { id: string; artifact_id: string }[];
      return items.length === count ? items.reverse() : undefined;
    },
    30_000,
    `${count} recorded events`,
  );
}

describe('the live event stream', () => {
  it('sends each event as it is recorded, from now on, with its id, kind and presented form', async () => {
    const ws = await workspace();
    await create(ws, 'before the stream');
    await recorded(ws, 1);
    const stream = new Stream();
    try {
      const res = await stream.open(admin, `/workspaces/${ws}/events/stream`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('x-accel-buffering'), 'no');
      assert.equal((await stream.next()).retry, '3000');
      const id = await create(ws, 'while streaming');
      const got = await stream.event();
      assert.equal(got.event, 'artifact_created');
      assert.equal(got.data.artifact_id, id, 'the event before the stream opened is not sent');
      assert.equal(got.data.id, got.id);
      assert.equal(got.data.workspace_id, ws);
      assert.equal(typeof got.data.recorded_at, 'string');
      await admin.patch(`/artifacts/${id}`, { title: 'changed while streaming' });
      const update = await stream.event();
      assert.equal(update.event, 'artifact_updated');
      assert.deepEqual(update.data.changed, ['title']);
    } finally {
      stream.close();
    }
  });

  it('resumes after Last-Event-ID (or ?last_event_id=) with exactly the events missed, then goes on live', async () => {
    const ws = await workspace();
    for (let i = 0; i < 5; i++) await create(ws, `missed ${i}`);
    const all = await recorded(ws, 5);
    for (const how of ['header', 'query'] as const) {
      const stream = new Stream();
      try {
        const from = all[1]!.id;
        const res =
          how === 'header'
            ? await stream.open(admin, `/workspaces/${ws}/events/stream`, { 'last-event-id': from })
            : await stream.open(admin, `/workspaces/${ws}/events/stream?last_event_id=${from}`);
        assert.equal(res.status, 200);
        const expected = all.slice(2).map((e) => e.id);
        const missed: string[] = [];
        while (missed.length < expected.length) missed.push((await stream.event()).id);
        assert.deepEqual(missed, expected, how);
        // Nothing else comes before the next live event: no duplicate, no older event.
        const live = await create(ws, `live after ${how}`);
        assert.equal((await stream.event()).data.artifact_id, live, how);
        all.push(...(await recorded(ws, all.length + 1)).slice(-1));
      } finally {
        stream.close();
      }
    }
  });

  it('answers 404 for a workspace the caller cannot see, 401 without a token, 400 for a bad Last-Event-ID', async () => {
    const ws = await workspace();
    const other = await platform.newUser();
    const stream = new Stream();
    const refused = await stream.open(other, `/workspaces/${ws}/events/stream`);
    assert.equal(refused.status, 404);
    assert.equal((await refused.json()).type, 'urn:platform:problem:not-found');
    const anonymous = await stream.open(platform.api, `/workspaces/${ws}/events/stream`);
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
    const bad = await stream.open(admin, `/workspaces/${ws}/events/stream`, { 'last-event-id': 'not-an-id' });
    assert.equal(bad.status, 400);
    const problem = await bad.json();
    assert.equal(problem.type, 'urn:platform:problem:validation-error');
    assert.equal(problem.invalid_params[0].name, 'Last-Event-ID');
    const unknown = await stream.open(admin, `/workspaces/${ws}/events/stream?access_token=x`);
    assert.equal(unknown.status, 400, 'no token in the URL');
    await unknown.body?.cancel();
  });

  it('frees the stream when the client aborts, and caps the streams one person holds open (429)', async () => {
    const ws = await workspace();
    const slots = eventStreams(platform.services);
    const first = new Stream();
    await first.open(admin, `/workspaces/${ws}/events/stream`);
    await first.next();
    assert.equal(slots.size, 1);
    first.close();
    await eventually(async () => slots.size === 0, 10_000, 'the aborted stream released');

    const person = await platform.newUser();
    const mine = await workspace(person);
    const open: Stream[] = [];
    try {
      for (;;) {
        const stream = new Stream();
        const res = await stream.open(person, `/workspaces/${mine}/events/stream`);
        if (res.status !== 200) {
          assert.equal(res.status, 429);
          assert.equal((await res.json()).type, 'urn:platform:problem:too-many-streams');
          assert.ok(res.headers.get('retry-after'));
          break;
        }
        await stream.next();
        open.push(stream);
        assert.ok(open.length <= 50, 'a cap exists');
      }
      assert.equal(slots.size, open.length);
      // Someone else still gets a stream.
      const theirs = new Stream();
      assert.equal((await theirs.open(admin, `/workspaces/${ws}/events/stream`)).status, 200);
      theirs.close();
    } finally {
      for (const stream of open) stream.close();
    }
    await eventually(async () => slots.size === 0, 10_000, 'every stream released');
  });

  it('ends when the credentials it was opened with no longer hold: a revoked API key', async () => {
    const ws = await workspace();
    const key = await admin.post('/api-keys', { name: 'stream reader', scopes: ['artifact:read'] });
    assert.equal(key.status, 201, key.text);
    const stream = new Stream();
    const checkEvery = eventStreamTiming.accessCheckMs;
    eventStreamTiming.accessCheckMs = 200;
    try {
      const reader = new Api(platform.url, key.body.key);
      assert.equal((await stream.open(reader, `/workspaces/${ws}/events/stream`)).status, 200);
      await create(ws, 'seen with the key');
      assert.equal((await stream.event()).event, 'artifact_created');
      assert.equal((await admin.delete(`/api-keys/${key.body.id}`)).status, 204);
      await assert.rejects(stream.event(), /the stream ended/);
    } finally {
      eventStreamTiming.accessCheckMs = checkEvery;
      stream.close();
    }
  });
});

/** An in-memory event store: events "recorded" in any order, read most recent first by id. */
function memorySource(): EventSource & { record(ms: number, n: number): string } {
  const docs: EventDoc[] = [];
  return {
    record(ms, n) {
      const id = uuidv7Floor(ms).slice(0, -12) + String(n).padStart(12, '0');
      docs.push({
        _id: id,
        kind: 'artifact_created',
        workspace_id: 'w',
        artifact_id: id,
        actor: 'a',
        occurred_at: '',
        recorded_at: new Date(),
      });
      return id;
    },
    async recent(_ws, limit, cursor) {
      const sorted = [...docs].sort((a, b) => (a._id < b._id ? 1 : -1)).filter((d) => !cursor || d._id < cursor);
      const items = sorted.slice(0, limit);
      return { items, next_cursor: sorted.length > limit ? items.at(-1)!._id : null };
    },
  };
}

describe('the tail behind the stream', () => {
  const ids = (batch: { events: EventDoc[] }) => batch.events.map((e) => e._id);

  it('delivers each event once, oldest first, and one recorded late inside the overlap window', async () => {
    const source = memorySource();
    const start = source.record(1_000_000, 0);
    const tail = new EventTail(source, 'w', start, { overlapMs: 10_000, maxScan: 500 });
    const a = source.record(1_001_000, 1);
    const c = source.record(1_003_000, 3);
    assert.deepEqual(ids(await tail.next()), [a, c]);
    assert.deepEqual(ids(await tail.next()), []);
    const b = source.record(1_002_000, 2); // written before c, recorded after it
    const old = source.record(990_000, 9); // below the resume point: never
    assert.deepEqual(ids(await tail.next()), [b]);
    const d = source.record(1_020_000, 4);
    assert.deepEqual(ids(await tail.next()), [d]);
    source.record(1_005_000, 5); // recorded more than the overlap below the newest delivered: no longer looked for
    const e = source.record(1_015_000, 6); // inside it: still delivered
    assert.deepEqual(ids(await tail.next()), [e]);
    assert.deepEqual(ids(await tail.next()), []);
    assert.ok(old < start);
  });

  it('tells a reader further behind than one read that it overflowed, and goes on from the newest', async () => {
    const source = memorySource();
    const start = source.record(1_000_000, 0);
    const tail = new EventTail(source, 'w', start, { overlapMs: 10_000, maxScan: 20 });
    let last = '';
    for (let i = 1; i <= 30; i++) last = source.record(1_000_000 + i, i);
    assert.deepEqual(await tail.next(), { events: [], overflowed: true });
    assert.equal(tail.position, last);
    const next = source.record(1_000_100, 31);
    assert.deepEqual(ids(await tail.next()), [next]);
  });
});

describe('shutting down', () => {
  // Without the stream ending, close would wait for ever: the timeout makes that a failure.
  it('ends the open streams, so that closing the server completes', { timeout: 60_000 }, async () => {
    const server: Server = createApp(platform.services).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as { port: number };
    const ws = await workspace();
    const stream = new Stream();
    await stream.open(new Api(`http://127.0.0.1:${port}`, admin.token), `/workspaces/${ws}/events/stream`);
    await stream.next();
    const closed = new Promise((r) => server.close(r));
    await assert.rejects(stream.next(), /the stream ended/);
    await closed;
  });
});
