// SPEC §4.6 on_create "validate" (issue #37): a type server refuses a new artifact of its type, and the
// create answers 400 rejected-by-type-server with the server's reason (bounded), storing nothing and
// emitting no event; a server that does not answer in time, or is down, is 503 type-server-unavailable,
// again with nothing stored; an accepted artifact carries the server's context. The servers are real
// MCP servers: the project's note-type-server over stdio, and test/fixtures/checked-type-server.mjs
// over Streamable HTTP.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../temporal-dev/engines.js';
import { eventually, type Api } from '../helpers/http.js';
import { envelope, postMcp } from '../helpers/mcp-raw.js';
import { noteTypeServer, registerServer } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { untilReady } from '../helpers/processes.js';

const noteType = 'application/vnd.example.note+json';
const checkedType = 'application/vnd.example.checked+json';
const timeoutSeconds = 4;
let platform: TestPlatform;
let alice: Api & { userId: string };
let notesWs: string;
let checkedWs: string;
let checked: ChildProcess;

async function startChecked(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['test/fixtures/checked-type-server.mjs'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: String(port), SLOW_MS: String((timeoutSeconds + 20) * 1000) },
  });
  await untilReady(child, /listening on/, 'checked-type-server', { timeoutMs: 30_000 });
  return child;
}

async function typeListed(ws: string, mime: string) {
  await eventually(
    async () => {
      const listed = await alice.get(`/mcp/workspaces/${ws}/servers?refresh=true`);
      return listed.body.servers?.some((s: { content_types?: { mime: string }[] }) => s.content_types?.some((t) => t.mime === mime));
    },
    60_000,
    `${mime} listed`,
  );
}

before(async () => {
  platform = await startPlatform(
    { ALLOW_STDIO_MCP_SERVERS: 'true', MCP_OUTBOUND_ALLOW: '127.0.0.0/8', ON_CREATE_TIMEOUT_SECONDS: String(timeoutSeconds) },
    { worker: true },
  );
  alice = await platform.newUser();
  notesWs = (await alice.post('/workspaces', { name: 'notes' })).body.id;
  checkedWs = (await alice.post('/workspaces', { name: 'checked' })).body.id;
  await registerServer(alice, notesWs, noteTypeServer, 'note types');
  const port = await freePort();
  checked = await startChecked(port);
  await registerServer(alice, checkedWs, { transport: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } }, 'checked types');
  await typeListed(notesWs, noteType);
  await typeListed(checkedWs, checkedType);
});
after(async () => {
  checked?.kill('SIGTERM');
  await platform?.close();
});

const create = (ws: string, content_type: string, content: string, title = 'new') =>
  alice.post('/artifacts', { title, content_type, content, collection_id: ws });

/**
 * The workspace's artifacts and its artifact_created events: what a refused create must leave as it
 * was. Events are relayed after the write: read once every artifact's creation has its event.
 */
async function footprint(ws: string) {
  return eventually(async () => {
    const items = (await alice.get(`/artifacts?collection_id=${ws}`)).body.items as { id: string }[];
    const events = (await alice.get(`/workspaces/${ws}/events?limit=200`)).body.items as { kind: string }[];
    const created = events.filter((e) => e.kind === 'artifact_created').length;
    return created >= items.length && { artifacts: items.map((i) => i.id).sort(), created };
  });
}

function assertRefused(r: { status: number; text: string; body: any; headers: Headers }, reason: RegExp) {
  assert.equal(r.status, 400, r.text);
  assert.match(r.headers.get('content-type') ?? '', /problem\+json/);
  assert.match(r.body.type, /:rejected-by-type-server$/);
  assert.match(r.body.detail, reason);
}

describe('on_create validates', () => {
  it("refuses an invalid note with the server's reason (isError), storing nothing and emitting no event", async () => {
    const before = await footprint(notesWs);
    const r = await create(notesWs, noteType, JSON.stringify({ heading: 'No body' }));
    assertRefused(r, /^note is missing a non-empty string "body"$/);
    assert.equal(r.body.status, 400);
    // The events are relayed asynchronously: give a stray one time to show up.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.deepEqual(await footprint(notesWs), before);
  });

  it('refuses the same over MCP (create_artifact): a tool error with the reason and the problem type', async () => {
    const before = await footprint(notesWs);
    const body = await postMcp(`${platform.url}/mcp`, alice.token!, {
      method: 'tools/call',
      params: {
        name: 'create_artifact',
        arguments: { title: 'bad', content_type: noteType, content: '[1, 2]', collection_id: notesWs },
        _meta: envelope(false),
      },
    });
    assert.equal(body.result?.isError, true, JSON.stringify(body));
    assert.match(body.result!.content[0].text, /content must be a JSON object.*rejected-by-type-server, 400/);
    assert.deepEqual(await footprint(notesWs), before);
  });

  it('stores a valid note with the context the server set, at once', async () => {
    const r = await create(
      notesWs,
      noteType,
      JSON.stringify({ heading: 'Plan', body: 'Ship the note type by Friday.', tags: ['Q3', 'q3'] }),
    );
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.context.word_count, 6);
    assert.deepEqual(r.body.context.tags, ['q3']);
    assert.equal(r.body.provenance.source.lifecycle, 'on_create', 'the enrichment is a revision of its own, naming the run');
    const got = await alice.get(`/artifacts/${r.body.id}`);
    assert.equal(got.body.revision, r.body.revision);
    assert.equal(got.body.context.word_count, 6);
  });

  it('takes a structured refusal ({valid: false, reason}) too', async () => {
    const before = await footprint(checkedWs);
    assertRefused(
      await create(checkedWs, checkedType, JSON.stringify({ name: 'x', answer: 'structured' })),
      /^answer "structured" is not allowed here$/,
    );
    assertRefused(await create(checkedWs, checkedType, JSON.stringify({ answer: 42 })), /non-empty "name"/);
    assert.deepEqual(await footprint(checkedWs), before);
  });

  it('bounds a huge reason and strips its control characters', async () => {
    const r = await create(checkedWs, checkedType, JSON.stringify({ name: 'x', answer: 'huge' }));
    assertRefused(r, /^too long: x+…$/);
    assert.ok(r.body.detail.length <= 1000, `${r.body.detail.length} characters`);
    assert.doesNotMatch(r.body.detail, /[\u0000-\u001f]/);
  });

  it('accepts a valid record, and leaves other types of the workspace alone (no on_create: skipped silently)', async () => {
    const ok = await create(checkedWs, checkedType, JSON.stringify({ name: ' Ada ' }));
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.context.checked_name, 'Ada');
    const plain = await create(checkedWs, 'text/markdown', 'not a record at all');
    assert.equal(plain.status, 201, plain.text);
    assert.equal(plain.body.revision, 1);
  });

  it('answers 503 type-server-unavailable when the server does not answer in time, and stores nothing', async () => {
    const before = await footprint(checkedWs);
    const started = Date.now();
    const r = await create(checkedWs, checkedType, JSON.stringify({ name: 'x', answer: 'slow' }));
    assert.equal(r.status, 503, r.text);
    assert.match(r.body.type, /:type-server-unavailable$/);
    assert.ok(r.headers.get('retry-after'), 'Retry-After is set');
    assert.ok(Date.now() - started < (timeoutSeconds + 15) * 1000, 'within the bound');
    assert.deepEqual(await footprint(checkedWs), before);
  });

  it('answers 503 when the server is down (fails closed), and stores nothing', async () => {
    checked.kill('SIGTERM');
    await new Promise((resolve) => checked.once('exit', resolve));
    const before = await footprint(checkedWs);
    const r = await create(checkedWs, checkedType, JSON.stringify({ name: 'down' }));
    assert.equal(r.status, 503, r.text);
    assert.match(r.body.type, /:type-server-unavailable$/);
    assert.deepEqual(await footprint(checkedWs), before);
  });
});
