// Chat turns (issue #36) against the real engines: the chat's schema, a turn answered by the model
// (the local OpenAI-compatible stand-in, streaming) with citations to real artifacts, a retried
// request, two turns at once, the scopes a turn needs, a collection's chat, the answer as it streams,
// and `ask` with a chat id through the official MCP client.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { commitInto } from '../helpers/commit.js';
import { createApiKey } from '../helpers/credentials.js';
import { Api, eventually } from '../helpers/http.js';
import { FakeOpenAI, type ChatRequest } from '../helpers/openai-server.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { turnStreamTiming } from '../../src/api/routes/chats.js';

const chatType = 'application/vnd.platform.chat+json';
let platform: TestPlatform;
let model: FakeOpenAI;
let alice: Api;
let ws: string;
let fact: string;

/** The number the prompt gave an artifact's passage (`[n] Title (artifact <id>)`). */
function refOf(req: ChatRequest, id: string): number {
  const prompt = req.messages.at(-1)!.content;
  const m = new RegExp(`\\[(\\d+)\\] [^\\n]*\\(artifact ${id}\\)`).exec(prompt);
  assert.ok(m, `the prompt lists ${id}: ${prompt}`);
  return Number(m[1]);
}

async function newChat(owner: Api, container: string, content: Record<string, unknown> = {}): Promise<string> {
  const created = await owner.post('/artifacts', {
    title: 'Maintenance chat',
    content_type: chatType,
    content: JSON.stringify(content),
    collection_id: container,
  });
  assert.equal(created.status, 201, created.text);
  return created.body.id;
}

/** The gearbox fact, cited by its number (and a number the model was never given); `ask` without a chat gets its JSON answer. */
const defaultReply = (req: ChatRequest) =>
  req.stream
    ? { content: `The oil is changed every 2000 hours [${refOf(req, fact)}]. [42]` }
    : { content: { answer: 'Every 2000 hours.', citations: [fact] } };

const turnsOf = async (owner: Api, chat: string) =>
  JSON.parse((await owner.get(`/artifacts/${chat}`)).body.content).turns as Record<string, any>[];

before(async () => {
  model = await new FakeOpenAI().start();
  platform = await startPlatform(
    { LLM_MODEL: 'test-model', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test', LLM_TIMEOUT_SECONDS: '20' },
    { worker: true },
  );
  alice = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'plant' })).body.id;
  const seeded = await alice.post('/artifacts', {
    title: 'Gearbox service',
    content_type: 'text/markdown',
    content: 'The gearbox oil is changed every 2000 hours.',
    collection_id: ws,
  });
  fact = seeded.body.id;
  await alice.post('/artifacts', {
    title: 'Canteen',
    content_type: 'text/markdown',
    content: 'Lunch is served at noon.',
    collection_id: ws,
  });
  await eventually(async () =>
    (await alice.post('/artifacts/search', { query: 'gearbox oil changed' })).body.results.some((r: { id: string }) => r.id === fact),
  );
  // By default the model answers with the gearbox fact, citing it by its number, and a number it was never given.
  model.reply = defaultReply;
});
after(async () => {
  await platform?.close();
  await model?.close();
});

describe('chat content', () => {
  it('creates a chat with no turns, and refuses content that is not a chat with 400 naming the field', async () => {
    const chat = await newChat(alice, ws);
    assert.deepEqual(JSON.parse((await alice.get(`/artifacts/${chat}`)).body.content), { turns: [] });
    const bad = [
      [{ turns: [{ role: 'bot', content: 'x', turn_id: crypto.randomUUID(), at: new Date().toISOString() }] }, 'content.turns.0.role'],
      [{ topic: 'x' }, 'content'],
      [{ sources: { workspace_ids: ['not-a-uuid'] } }, 'content.sources.workspace_ids.0'],
      [{ instructions: 'x'.repeat(4001) }, 'content.instructions'],
    ] as const;
    for (const [content, field] of bad) {
      const reply = await alice.post('/artifacts', {
        title: 'bad',
        content_type: chatType,
        content: JSON.stringify(content),
        collection_id: ws,
      });
      assert.equal(reply.status, 400, reply.text);
      assert.ok(
        reply.body.invalid_params.some((p: { name: string }) => p.name === field),
        `${field} in ${reply.text}`,
      );
    }
  });

  it('refuses a bad turn with 400 and adds nothing', async () => {
    const chat = await newChat(alice, ws);
    for (const body of [{}, { message: '   ' }, { message: 'x'.repeat(4001) }, { message: 'hi', extra: 1 }, { message: 'hi', limit: 0 }]) {
      const reply = await alice.post(`/artifacts/${chat}/turns`, body);
      assert.equal(reply.status, 400, `${JSON.stringify(body)}: ${reply.text}`);
    }
    assert.equal(await (await alice.get(`/artifacts/${fact}/turns/${crypto.randomUUID()}`)).status, 404, 'not a chat');
    assert.equal((await alice.post(`/artifacts/${fact}/turns`, { message: 'hi' })).status, 404, 'not a chat');
    assert.deepEqual(await turnsOf(alice, chat), []);
  });
});

describe('a turn', () => {
  it("is answered by the model from search, citing real artifacts, as the chat's next revision", async () => {
    const chat = await newChat(alice, ws);
    const before = (await alice.get(`/artifacts/${chat}`)).body.revision as number;
    const reply = await alice.post(`/artifacts/${chat}/turns`, { message: 'How often is the gearbox oil changed?' });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.status, 'completed');
    const [user, answer] = reply.body.turns;
    assert.equal(user.role, 'user');
    assert.equal(user.content, 'How often is the gearbox oil changed?');
    assert.equal(answer.role, 'assistant');
    assert.equal(answer.mode, 'llm');
    assert.match(answer.content, /every 2000 hours/);
    assert.deepEqual(
      answer.citations.map((c: { artifact_id: string }) => c.artifact_id),
      [fact],
      'the cited passage, never a number the model was not given',
    );
    assert.equal(answer.citations[0].title, 'Gearbox service');
    assert.equal(model.requests.at(-1)!.stream, true, 'the answer is streamed');
    const stored = (await alice.get(`/artifacts/${chat}`)).body;
    assert.equal(stored.revision, before + 1);
    assert.equal(reply.body.revision, stored.revision);
    assert.deepEqual(JSON.parse(stored.content).turns, reply.body.turns);

    // The next turn: the model sees the conversation so far.
    await alice.post(`/artifacts/${chat}/turns`, { message: 'And the filter?' });
    const seen = model.requests.at(-1)!.messages.map((m) => m.content);
    assert.ok(seen.includes('How often is the gearbox oil changed?'), JSON.stringify(seen));
    assert.ok(seen.some((c) => /every 2000 hours/.test(c)));
    assert.equal((await turnsOf(alice, chat)).length, 4);
  });

  it('retried with the same Idempotency-Key: the same turn, added once; another question under it: 409', async () => {
    const chat = await newChat(alice, ws);
    const send = (message: string) =>
      alice.request('POST', `/artifacts/${chat}/turns`, { body: { message }, headers: { 'idempotency-key': 'retry-1' } });
    const first = await send('How often is the gearbox oil changed?');
    const again = await send('How often is the gearbox oil changed?');
    assert.equal(first.status, 200, first.text);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.turn_id, first.body.turn_id);
    assert.equal((await turnsOf(alice, chat)).length, 2);
    const reused = await send('Something else?');
    assert.equal(reused.status, 409, reused.text);
    assert.match(reused.body.type, /idempotency-key-reused/);
    assert.equal((await turnsOf(alice, chat)).length, 2);
  });

  it('two requests under one key at once, with different questions: one turn, the other 409', async () => {
    const chat = await newChat(alice, ws);
    const send = (message: string) =>
      alice.request('POST', `/artifacts/${chat}/turns`, { body: { message }, headers: { 'idempotency-key': 'race-1' } });
    // Both about the gearbox (the default model reply cites the gearbox fact, whichever wins).
    const replies = await Promise.all([send('How often is the gearbox oil changed?'), send('Gearbox oil: how often is it changed?')]);
    assert.deepEqual(replies.map((r) => r.status).sort(), [200, 409], replies.map((r) => r.text).join('\n'));
    const kept = replies.find((r) => r.status === 200)!;
    const turns = await turnsOf(alice, chat);
    assert.equal(turns.length, 2);
    assert.equal(turns[0]!.content, kept.body.question, 'the answer given is the question asked');
  });

  it('two turns at once: both kept, each question beside its answer', async () => {
    const chat = await newChat(alice, ws);
    model.reply = (req) => ({
      content: `Answer [${refOf(req, fact)}]`,
      chunks: ['Ans', 'wer ', `[${refOf(req, fact)}]`],
      chunkDelayMs: 50,
    });
    try {
      const [a, b] = await Promise.all([
        alice.post(`/artifacts/${chat}/turns`, { message: 'gearbox oil first?' }),
        alice.post(`/artifacts/${chat}/turns`, { message: 'gearbox oil second?' }),
      ]);
      assert.equal(a.status, 200, a.text);
      assert.equal(b.status, 200, b.text);
      const turns = await turnsOf(alice, chat);
      assert.equal(turns.length, 4, JSON.stringify(turns));
      for (const reply of [a, b]) {
        const i = turns.findIndex((t) => t.turn_id === reply.body.turn_id);
        assert.equal(turns[i]!.role, 'user');
        assert.equal(turns[i + 1]!.role, 'assistant');
        assert.equal(turns[i + 1]!.turn_id, reply.body.turn_id);
      }
      assert.notEqual(a.body.revision, b.body.revision);
    } finally {
      model.reply = defaultReply;
    }
  });

  it('streams the answer as the model writes it, then the ended turn', async () => {
    const chat = await newChat(alice, ws);
    const pieces = ['The ', 'oil ', 'is ', 'changed ', 'every ', '2000 ', 'hours.'];
    model.reply = () => ({ content: pieces.join(''), chunks: pieces, chunkDelayMs: 300 });
    try {
      const started = await alice.post(`/artifacts/${chat}/turns`, { message: 'How often is the gearbox oil changed?', wait_seconds: 0 });
      assert.equal(started.status, 202, started.text);
      assert.equal(started.headers.get('location'), started.body.poll);
      // A page showing the chat finds the answer being written, and where to follow it.
      await eventually(async () => {
        const now = await alice.get(`/artifacts/${chat}/turns`);
        assert.equal(now.status, 200, now.text);
        return now.body.running.some(
          (r: Record<string, string>) =>
            r.turn_id === started.body.turn_id &&
            r.stream === started.body.stream &&
            r.question === 'How often is the gearbox oil changed?',
        );
      });
      const res = await fetch(platform.url + started.body.stream, { headers: { authorization: `Bearer ${alice.token}` } });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type')!, /text\/event-stream/);
      const events: { event: string; data: any }[] = [];
      for (const block of (await res.text()).split('\n\n')) {
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) });
      }
      const deltas = events.filter((e) => e.event === 'delta');
      assert.ok(deltas.length >= 2, `the answer came in pieces: ${JSON.stringify(events)}`);
      let text = '';
      for (const { data } of deltas) text = text.slice(0, data.offset) + data.text;
      assert.equal(text, pieces.join(''));
      const end = events.at(-1)!;
      assert.equal(end.event, 'turn');
      assert.equal(end.data.status, 'completed');
      assert.equal(end.data.turns[1].content, pieces.join(''));
      const polled = await alice.get(started.body.poll);
      assert.equal(polled.status, 200);
      assert.equal(polled.body.status, 'completed');
    } finally {
      model.reply = defaultReply;
    }
  });
});

describe('turn streams', () => {
  it('a person holds at most 8 at once (429), and one the client leaves is freed at once', async () => {
    const chat = await newChat(alice, ws);
    const pieces = Array.from({ length: 60 }, (_, i) => `w${i} `);
    model.reply = () => ({ content: pieces.join(''), chunks: pieces, chunkDelayMs: 500 });
    const readers: AbortController[] = [];
    const open = async () => {
      const reader = new AbortController();
      const res = await fetch(`${platform.url}/artifacts/${chat}/turns/${turn}/stream`, {
        headers: { authorization: `Bearer ${alice.token}` },
        signal: reader.signal,
      });
      if (res.status === 200) readers.push(reader);
      else await res.body?.cancel();
      return res.status;
    };
    let turn = '';
    try {
      turn = (await alice.post(`/artifacts/${chat}/turns`, { message: 'gearbox oil?', wait_seconds: 0 })).body.turn_id;
      for (let i = 0; i < 8; i++) assert.equal(await open(), 200);
      assert.equal(await open(), 429);
      readers.pop()!.abort();
      // Freed when the client leaves, long before the answer (30 s) ends.
      await eventually(async () => (await open()) === 200, 10_000, 'a freed stream');
    } finally {
      for (const r of readers) r.abort();
      model.reply = defaultReply;
    }
  });
});

describe('a turn stream whose reader loses access', () => {
  it('ends when their share is withdrawn or their key revoked, before the answer does', async () => {
    const bob = await platform.newUser();
    const shared = (await alice.post('/workspaces', { name: 'streamed' })).body.id;
    assert.equal((await alice.post(`/workspaces/${shared}/shares`, { person_id: bob.userId, flags: 'R' })).status, 200);
    // Something bob reads too grounds the answer (else nothing does, and no model is asked).
    const note = await alice.post('/artifacts', {
      title: 'Conveyor belt',
      content_type: 'text/markdown',
      content: 'The conveyor belt tension is checked every week.',
      collection_id: shared,
    });
    await eventually(async () =>
      (await alice.post('/artifacts/search', { query: 'conveyor belt tension', workspace_ids: [shared] })).body.results.some(
        (r: { id: string }) => r.id === note.body.id,
      ),
    );
    const chat = await newChat(alice, shared);
    const key = await createApiKey(alice, ['artifact:read']);
    const pieces = Array.from({ length: 40 }, (_, i) => `w${i} `);
    model.reply = () => ({ content: pieces.join(''), chunks: pieces, chunkDelayMs: 500 });
    const checkEvery = turnStreamTiming.accessCheckMs;
    turnStreamTiming.accessCheckMs = 200;
    const readers: AbortController[] = [];
    /** Reads a stream to its end: the events it sent. */
    const read = async (token: string, path: string) => {
      const reader = new AbortController();
      readers.push(reader);
      const res = await fetch(platform.url + path, { headers: { authorization: `Bearer ${token}` }, signal: reader.signal });
      assert.equal(res.status, 200);
      return [...(await res.text()).matchAll(/^event: (.*)$/gm)].map((m) => m[1]);
    };
    try {
      const started = await alice.post(`/artifacts/${chat}/turns`, {
        message: 'How is the conveyor belt tension checked?',
        wait_seconds: 0,
      });
      assert.equal(started.status, 202, started.text);
      const asBob = read(bob.token!, started.body.stream);
      const asKey = read(key.key, started.body.stream);
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal((await alice.delete(`/workspaces/${shared}/shares/${bob.userId}`)).status, 204);
      assert.equal((await alice.delete(`/api-keys/${key.id}`)).status, 204);
      const ended = Date.now();
      const [bobs, keys] = await Promise.all([asBob, asKey]);
      assert.ok(Date.now() - ended < 10_000, 'both ended long before the answer (20 s)');
      assert.ok(!bobs.includes('turn') && !keys.includes('turn'), `no ended turn was sent: ${bobs} / ${keys}`);
    } finally {
      turnStreamTiming.accessCheckMs = checkEvery;
      for (const r of readers) r.abort();
      model.reply = defaultReply;
    }
  });
});

describe('when the model cannot answer, or the chat is full', () => {
  it('a model that refuses: the top passages, said plainly, with why', async () => {
    const chat = await newChat(alice, ws);
    model.reply = () => ({ status: 400 });
    try {
      const reply = await alice.post(`/artifacts/${chat}/turns`, { message: 'How often is the gearbox oil changed?' });
      assert.equal(reply.status, 200, reply.text);
      const answer = reply.body.turns[1];
      assert.equal(answer.mode, 'extractive');
      assert.match(answer.note, /^The model did not answer \(llm-rejected: The model endpoint answered 400/);
      assert.ok(answer.content.startsWith(answer.note));
      assert.ok(answer.citations.some((c: { artifact_id: string }) => c.artifact_id === fact));
    } finally {
      model.reply = defaultReply;
    }
  });

  it('a chat holding as many turns as it may: 409, nothing added', async () => {
    const at = new Date().toISOString();
    const turns = Array.from({ length: 199 }, (_, i) => ({
      turn_id: crypto.randomUUID(),
      role: i % 2 ? 'assistant' : 'user',
      content: 'x',
      at,
    }));
    const chat = await newChat(alice, ws, { turns });
    const reply = await alice.post(`/artifacts/${chat}/turns`, { message: 'gearbox oil?' });
    assert.equal(reply.status, 409, reply.text);
    assert.match(reply.body.type, /chat-full/);
    assert.equal((await turnsOf(alice, chat)).length, 199);
  });
});

describe('who may add a turn', () => {
  it('needs artifact:write, search:read and artifact:read: 403 otherwise, and nothing is added', async () => {
    const chat = await newChat(alice, ws);
    for (const scopes of [
      ['artifact:read', 'search:read'],
      ['artifact:read', 'artifact:write'],
    ]) {
      const key = await createApiKey(alice, scopes);
      const reply = await new Api(platform.url, key.key).post(`/artifacts/${chat}/turns`, { message: 'gearbox oil?' });
      assert.equal(reply.status, 403, `${scopes}: ${reply.text}`);
    }
    const bob = await platform.newUser();
    assert.equal((await bob.post(`/artifacts/${chat}/turns`, { message: 'gearbox oil?' })).status, 404, 'not shared with bob');
    assert.deepEqual(await turnsOf(alice, chat), []);
  });

  it('a chat in a collection is immutable: 409', async () => {
    const col = (await alice.post('/collections', { name: 'chats' })).body.id;
    const [committed] = await commitInto(alice, col, [{ title: 'Kept chat', content_type: chatType, content: '{"turns":[]}' }]);
    const reply = await alice.post(`/artifacts/${committed}/turns`, { message: 'gearbox oil?' });
    assert.equal(reply.status, 409, reply.text);
    assert.match(reply.body.type, /immutable-artifact/);
  });
});

describe("a shared chat's grounding", () => {
  it('uses only what every reader of the chat can read', async () => {
    const bob = await platform.newUser();
    const mine = (await alice.post('/workspaces', { name: 'private' })).body.id;
    const secret = (
      await alice.post('/artifacts', {
        title: 'Turbine inspection',
        content_type: 'text/markdown',
        content: 'Turbine blades are inspected every 300 hours.',
        collection_id: mine,
      })
    ).body.id;
    await eventually(async () =>
      (await alice.post('/artifacts/search', { query: 'turbine blades inspected' })).body.results.some(
        (r: { id: string }) => r.id === secret,
      ),
    );
    const shared = (await alice.post('/workspaces', { name: 'shared' })).body.id;
    assert.equal((await alice.post(`/workspaces/${shared}/shares`, { person_id: bob.userId, flags: 'R' })).status, 200);
    const sharedChat = await newChat(alice, shared);
    const privateChat = await newChat(alice, mine);
    model.reply = (req) => ({
      content: /Turbine blades/.test(req.messages.at(-1)!.content) ? `Every 300 hours [${refOf(req, secret)}].` : 'I do not know.',
    });
    try {
      const seen = model.requests.length;
      const inShared = await alice.post(`/artifacts/${sharedChat}/turns`, { message: 'How often are turbine blades inspected?' });
      assert.equal(inShared.status, 200, inShared.text);
      assert.equal(inShared.body.turns[1].mode, 'none', 'bob cannot read the private workspace: nothing grounds the answer');
      assert.ok(
        model.requests.slice(seen).every((r) => !JSON.stringify(r).includes('300 hours')),
        'the private passage never reached the model',
      );
      assert.equal((await bob.get(`/artifacts/${sharedChat}`)).status, 200, 'bob reads the chat');
      const inPrivate = await alice.post(`/artifacts/${privateChat}/turns`, { message: 'How often are turbine blades inspected?' });
      assert.deepEqual(
        inPrivate.body.turns[1].citations.map((c: { artifact_id: string }) => c.artifact_id),
        [secret],
        'a chat only its owner reads searches everything she may',
      );
    } finally {
      model.reply = defaultReply;
    }
  });
});

describe('ask with a chat id (MCP)', () => {
  it('adds the question and its answer to the chat, citing artifact ids; without one, nothing is written', async () => {
    const chat = await newChat(alice, ws);
    const client = new Client({ name: 'chat-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${alice.token!}` } },
      }),
    );
    try {
      const result = await client.callTool({
        name: 'ask',
        arguments: { question: 'How often is the gearbox oil changed?', chat_id: chat },
      });
      assert.notEqual(result.isError, true, JSON.stringify(result.content));
      const out = result.structuredContent as Record<string, any>;
      assert.equal(out.mode, 'llm');
      assert.equal(out.chat_id, chat);
      assert.deepEqual(out.citations, [fact]);
      assert.match(out.answer, /every 2000 hours/);
      const turns = await turnsOf(alice, chat);
      assert.equal(turns.length, 2);
      assert.equal(turns[0]!.turn_id, out.turn_id);

      const plain = await client.callTool({ name: 'ask', arguments: { question: 'How often is the gearbox oil changed?' } });
      assert.notEqual(plain.isError, true, JSON.stringify(plain.content));
      assert.equal((plain.structuredContent as Record<string, any>).chat_id, undefined);
      assert.equal((await turnsOf(alice, chat)).length, 2);

      const notAChat = await client.callTool({ name: 'ask', arguments: { question: 'gearbox?', chat_id: fact } });
      assert.equal(notAChat.isError, true);

      // A credential that may search and read but not write: ask answers, the chat takes no turn.
      const key = await createApiKey(alice, ['search:read', 'artifact:read']);
      const reader = new Client({ name: 'chat-test-reader', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await reader.connect(
        new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key.key}` } },
        }),
      );
      try {
        const refused = await reader.callTool({ name: 'ask', arguments: { question: 'gearbox oil?', chat_id: chat } });
        assert.equal(refused.isError, true);
        assert.match(JSON.stringify(refused.content), /artifact:write/);
      } finally {
        await reader.close();
      }
      assert.equal((await turnsOf(alice, chat)).length, 2);
    } finally {
      await client.close();
    }
  });
});
