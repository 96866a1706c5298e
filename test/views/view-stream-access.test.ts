// A view's results stream against the real engines (issue #36, review): it ends when the session it was
// opened with is signed out, it shows a withdrawn grant within a look, open streams share their reads
// of the store, and GET .../results is never kept by a shared cache.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { viewStreamTiming } from '../../src/api/routes/views.js';
import { Api } from '../helpers/http.js';
import { Browser, formFields, pkce, sessionCookie } from '../helpers/oauth-browser.js';
import { adminEmail, adminPassword, startPlatform, type TestPlatform } from '../helpers/platform.js';

const viewType = 'application/vnd.platform.view+json';
let platform: TestPlatform;
let alice: Api & { userId: string };
let bob: Api & { userId: string };

before(async () => {
  platform = await startPlatform({ SIGN_IN_LOCK_AFTER: '0', AUTH_RATE_LIMIT_PER_MINUTE: '0' });
  alice = await platform.newUser();
  bob = await platform.newUser();
});
after(() => platform?.close());

async function draft(api: Api, collectionId: string, title: string) {
  const reply = await api.post('/artifacts', { title, content_type: 'text/markdown', content: `# ${title}`, collection_id: collectionId });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id as string;
}

async function view(api: Api, collectionId: string, content: object) {
  const reply = await api.post('/artifacts', {
    title: 'A view',
    content_type: viewType,
    content: JSON.stringify(content),
    collection_id: collectionId,
  });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id as string;
}

type Message = { id: string; event: string; data: Record<string, unknown> };

/** A Server-Sent Events reader over fetch; `ended` resolves when the server closes the stream. */
async function openStream(url: string, token: string) {
  const aborter = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: aborter.signal });
  assert.equal(res.status, 200, await (res.ok ? '' : res.text()));
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const messages: Message[] = [];
  const wake: { fn: (() => void) | null } = { fn: null };
  const ended = (async () => {
    let buffer = '';
    for (;;) {
      const read = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (read.done) break;
      buffer += decoder.decode(read.value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const fields: Record<string, string> = {};
        for (const line of buffer.slice(0, end).split('\n')) {
          const m = /^(id|event|data): ?(.*)$/.exec(line);
          if (m) fields[m[1]!] = m[2]!;
        }
        buffer = buffer.slice(end + 2);
        if (fields.data !== undefined)
          messages.push({ id: fields.id ?? '', event: fields.event ?? 'message', data: JSON.parse(fields.data) });
        wake.fn?.();
      }
    }
    wake.fn?.();
    return Date.now();
  })();
  let done = false;
  void ended.then(() => (done = true));
  return {
    ended,
    close: () => aborter.abort(),
    async next(ms = 20_000): Promise<Message> {
      const deadline = Date.now() + ms;
      while (messages.length === 0) {
        if (done) throw new Error('the stream ended');
        if (Date.now() > deadline) throw new Error('no message in time');
        await new Promise<void>((r) => {
          wake.fn = r;
          setTimeout(r, 200);
        });
      }
      return messages.shift()!;
    },
  };
}

/** The platform console's sign-in, as a browser does it: a console access token tied to a browser session. */
async function consoleSession() {
  const base = platform.url;
  const browser = new Browser(base);
  const { verifier, challenge } = pkce();
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: 'platform-console',
    redirect_uri: `${base}/console/callback`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'view-stream',
    resource: base,
  });
  const login = await browser.get(`/oauth/authorize?${q}`);
  assert.equal(login.status, 200, login.html);
  const signedIn = await browser.post('/oauth/login', {
    ...formFields(login.html, '/oauth/login'),
    email: adminEmail,
    password: adminPassword,
  });
  assert.equal(signedIn.status, 303, signedIn.html);
  assert.ok(sessionCookie(signedIn.headers));
  const back = await browser.get(signedIn.location!);
  const code = new URL(back.location!).searchParams.get('code')!;
  const res = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${base}/console/callback`,
      client_id: 'platform-console',
      code_verifier: verifier,
    }).toString(),
  });
  assert.equal(res.status, 200);
  return { browser, token: ((await res.json()) as { access_token: string }).access_token };
}

describe('view results stream: access', () => {
  it('ends within a few seconds of its console session being signed out (not at the next half-minute check)', async () => {
    const { browser, token } = await consoleSession();
    const api = new Api(platform.url, token);
    const w = (await api.post('/workspaces', { name: 'Signed out' })).body.id as string;
    await draft(api, w, 'Seen while signed in');
    const id = await view(api, w, { sources: { workspaces: [w] } });
    const stream = await openStream(`${platform.url}/artifacts/${id}/results/stream`, token);
    try {
      assert.equal((await stream.next()).event, 'results');
      assert.equal((await browser.post('/oauth/sign-out', {})).status, 200);
      const signedOutAt = Date.now();
      const endedAt = await Promise.race([stream.ended, new Promise<number>((r) => setTimeout(() => r(0), 15_000))]);
      assert.ok(endedAt > 0, 'the stream outlived its session by 15 s');
      assert.ok(endedAt - signedOutAt <= viewStreamTiming.accessCheckMs + 3000, `ended ${endedAt - signedOutAt} ms after the sign-out`);
    } finally {
      stream.close();
    }
  });

  it('shows a withdrawn grant at the next look: the source unreadable, unnamed, and none of its artifacts', async () => {
    const shared = (await alice.post('/workspaces', { name: 'Lent to Bob' })).body.id as string;
    await draft(alice, shared, 'Lent note');
    assert.equal((await alice.post(`/workspaces/${shared}/shares`, { person_id: bob.userId, flags: 'R' })).status, 200);
    const desk = (await bob.post('/workspaces', { name: 'Bob desk' })).body.id as string;
    const id = await view(bob, desk, { sources: { workspaces: [shared] } });
    const stream = await openStream(`${platform.url}/artifacts/${id}/results/stream`, bob.token!);
    try {
      const first = (await stream.next()).data as { items: { title: string }[]; sources: { readable: boolean; name?: string }[] };
      assert.deepEqual(
        first.items.map((i) => i.title),
        ['Lent note'],
      );
      assert.equal((await alice.delete(`/workspaces/${shared}/shares/${bob.userId}`)).status, 204);
      const next = (await stream.next(viewStreamTiming.lookMs + 10_000)).data as typeof first;
      assert.deepEqual(next.items, []);
      assert.deepEqual(next.sources, [{ kind: 'workspace', id: shared, readable: false }]);
      assert.ok(!JSON.stringify(next).includes('Lent to Bob'), "the source's name is gone");
    } finally {
      stream.close();
    }
  });

  it('costs one read of a followed workspace per poll for all its open streams, not one per stream', async () => {
    const w = (await alice.post('/workspaces', { name: 'Crowded' })).body.id as string;
    const id = await view(alice, w, { sources: { workspaces: [w] } });
    const streams = await Promise.all(
      Array.from({ length: 6 }, () => openStream(`${platform.url}/artifacts/${id}/results/stream`, alice.token!)),
    );
    try {
      for (const s of streams) assert.equal((await s.next()).event, 'results');
      // Counted where every stream's look at a workspace's newest event goes: the event store (still answering).
      const events = platform.services.events;
      const recent = events.recent.bind(events);
      let reads = 0;
      events.recent = (workspaceId, ...rest) => {
        if (workspaceId === w) reads++;
        return recent(workspaceId, ...rest);
      };
      const seconds = 4;
      try {
        await new Promise((r) => setTimeout(r, seconds * 1000));
      } finally {
        events.recent = recent;
      }
      // One stream alone polls `seconds` times; six streams reading each for themselves would read six times that.
      assert.ok(reads <= seconds * 2 + 2, `${reads} reads of the newest event in ${seconds} s for 6 streams`);
      // They still see a write.
      await draft(alice, w, 'Arrived');
      for (const s of streams) {
        const titles = ((await s.next()).data as { items: { title: string }[] }).items.map((i) => i.title);
        assert.ok(titles.includes('Arrived'));
      }
    } finally {
      for (const s of streams) s.close();
    }
  });
});

describe('view results: caching', () => {
  it('is private to its reader (no shared cache keeps it) and answers 304 to If-None-Match: *', async () => {
    const w = (await alice.post('/workspaces', { name: 'Cached' })).body.id as string;
    const id = await view(alice, w, { sources: { workspaces: [w] } });
    const got = await alice.get(`/artifacts/${id}/results`);
    assert.equal(got.status, 200);
    assert.match(got.headers.get('cache-control') ?? '', /private/);
    assert.match(got.headers.get('cache-control') ?? '', /no-cache/);
    assert.match(got.headers.get('vary') ?? '', /authorization/i);
    assert.equal((await alice.get(`/artifacts/${id}/results`, { 'if-none-match': '*' })).status, 304);
    assert.equal((await alice.get(`/artifacts/${id}/results`, { 'if-none-match': '"other", W/' + got.headers.get('etag') })).status, 304);
    assert.equal((await alice.get(`/artifacts/${id}/results`, { 'if-none-match': '"other"' })).status, 200);
  });
});

describe('store: context.tags', () => {
  it('matches a tag as an element of context.tags, as MongoDB does, on the engine the platform runs on', async () => {
    const w = (await alice.post('/workspaces', { name: 'Tagged' })).body.id as string;
    const make = async (title: string, tags: unknown) => {
      const reply = await alice.post('/artifacts', {
        title,
        content_type: 'text/plain',
        content: title,
        context: { tags },
        collection_id: w,
      });
      assert.equal(reply.status, 201, reply.text);
    };
    await make('both', ['x', 'y']);
    await make('lone', 'x');
    await make('other', ['y']);
    const artifacts = platform.services.db.collection<{ title: string }>('artifacts');
    const titles = async (filter: object) =>
      (await artifacts.find({ $and: [{ collection_id: w }, filter] }).toArray()).map((d) => d.title).sort();
    assert.deepEqual(await titles({ 'context.tags': 'x' }), ['both', 'lone']);
    assert.deepEqual(await titles({ 'context.tags': { $in: ['x'] } }), ['both', 'lone']);
    assert.deepEqual(await titles({ 'context.tags': { $ne: 'x' } }), ['other']);
    assert.deepEqual(await titles({ 'context.tags': ['x', 'y'] }), ['both'], 'a whole array is equality of the whole list');
    assert.deepEqual(await titles({ 'context.tags': { $in: ['x', 'y'] } }), ['both', 'lone', 'other']);
  });
});
