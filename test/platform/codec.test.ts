// The payload codec end to end: artifact content passed through an invocation (preview, so the proposal
// sits in the workflow's state) and a commit never reaches Temporal's store in clear; the codec server
// decodes a stored payload for an administrator only; a history written before a key rotation replays
// after it while the previous key is configured, and fails clearly without it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Payload } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { agentId } from '../../src/invocations/agents/registry.js';
import { EncryptionCodec, encryptedEncoding, keyIdKey } from '../../src/temporal/codec/encryption-codec.js';
import { keyEncryptionKeys } from '../../src/temporal/codec/keys.js';
import { createApiKey } from '../helpers/credentials.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

type History = Awaited<ReturnType<ReturnType<TestPlatform['services']['temporal']['workflow']['getHandle']>['fetchHistory']>>;

const marker = `codec-marker-${randomBytes(6).toString('hex')}`;
let platform: TestPlatform;
let alice: Api & { userId: string };
let admin: Api;
let ws: string;
let histories: { workflowId: string; history: History }[] = [];

/** Every payload of a history, wherever it sits: a walk over the decoded proto objects. */
function payloadsIn(value: unknown, found: Payload[] = []): Payload[] {
  if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return found;
  const obj = value as Record<string, unknown>;
  if (obj.metadata && typeof obj.metadata === 'object' && 'data' in obj) found.push(obj as Payload);
  for (const v of Object.values(obj)) payloadsIn(v, found);
  return found;
}
const text = (b: Uint8Array | null | undefined) => Buffer.from(b ?? []).toString('utf8');
const wire = (p: Payload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])),
  data: Buffer.from(p.data ?? []).toString('base64'),
});
/** The Temporal dev server's store for this run (temporal-dev/engines.ts): its database and write-ahead log. */
const storeFiles = () => ['temporal.db', 'temporal.db-wal'].map((f) => join(process.env.TEST_STATE_DIR!, f)).filter((f) => existsSync(f));

before(async () => {
  platform = await startPlatform({}, { worker: true });
  alice = await platform.newUser();
  admin = await platform.admin();
  ws = (await alice.post('/workspaces', { name: 'sealed' })).body.id;
  const col = (await alice.post('/collections', { name: 'sealed' })).body.id;
  const doc = await alice.post('/artifacts', {
    title: 'Handbook',
    content_type: 'text/markdown',
    content: `# Intro\n${marker} first.\n\n## Usage\n${marker} second.`,
    collection_id: ws,
  });
  assert.equal(doc.status, 201, doc.text);
  // An invocation in preview: the proposed actions copy the sections (and the marker) into the workflow.
  const run = await alice.post(`/artifacts/${agentId('split-sections')}/invoke`, { artifact_ids: [doc.body.id] });
  assert.equal(run.status, 200, run.text);
  assert.equal(run.body.status, 'awaiting_decision');
  assert.ok(JSON.stringify(run.body.actions).includes(marker), 'the proposal holds the marker');
  // A commit: its preview and snapshot carry the content too.
  const commit = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'sealed' });
  assert.equal(commit.status, 202, commit.text);
  const state = () => alice.get(`/commits/${commit.body.id}`).then((r) => r.body);
  await eventually(async () => (await state()).state === 'awaiting_approval', 30_000, 'commit awaiting approval');
  assert.equal((await alice.post(`/commits/${commit.body.id}/approve`, {})).status, 200);
  await eventually(async () => (await state()).state === 'committed', 30_000, 'commit committed');

  const client = platform.services.temporal;
  histories = await eventually(
    async () => {
      const found: typeof histories = [];
      for await (const r of client.workflow.list({ query: `WorkspaceId = "${ws}"` }))
        found.push({ workflowId: r.workflowId, history: await client.workflow.getHandle(r.workflowId, r.runId).fetchHistory() });
      return found.some((h) => h.workflowId.startsWith('commit-')) && found.length >= 3 ? found : undefined;
    },
    20_000,
    'the workspace histories',
  );
});
after(() => platform?.close());

describe('payload codec: Temporal stores ciphertext', () => {
  it('the raw store (database and WAL) holds no trace of the marker, but holds the clear search attributes', () => {
    const files = storeFiles();
    assert.ok(files.length > 0, 'the dev server store is found');
    const raw = Buffer.concat(files.map((f) => readFileSync(f)));
    assert.ok(!raw.includes(marker), 'the marker is not in the store');
    assert.ok(!raw.includes(Buffer.from(marker).toString('base64').slice(0, 16)), 'nor in base64');
    // Control: what is clear by design (a search attribute, the workspace id) is found by the same grep.
    assert.ok(raw.includes(ws), 'the grep finds what is in clear');
  });

  it('every payload of the histories is sealed, and decoding them with the codec finds the marker', async () => {
    const codec = new EncryptionCodec(keyEncryptionKeys(platform.config));
    const payloads = histories.flatMap((h) => payloadsIn(h.history));
    assert.ok(payloads.length > 10, `payloads found: ${payloads.length}`);
    for (const p of payloads) assert.equal(text(p.metadata!.encoding), encryptedEncoding);
    const decoded = await codec.decode(payloads);
    assert.ok(
      decoded.some((p) => text(p.data).includes(marker)),
      'the decoded payloads hold the marker',
    );
  });
});

describe('codec server', () => {
  let sealed: Payload;
  before(async () => {
    const codec = new EncryptionCodec(keyEncryptionKeys(platform.config));
    const payloads = histories.flatMap((h) => payloadsIn(h.history));
    const opened = await codec.decode(payloads);
    sealed = payloads[opened.findIndex((p) => text(p.data).includes(marker))]!;
  });

  it('decodes a stored payload for an administrator', async () => {
    const r = await admin.request('POST', '/codec/decode', {
      body: { payloads: [wire(sealed)] },
      headers: { 'x-namespace': platform.config.TEMPORAL_NAMESPACE },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    const [out] = r.body.payloads;
    assert.equal(Buffer.from(out.metadata.encoding, 'base64').toString(), 'json/plain');
    assert.ok(Buffer.from(out.data, 'base64').toString().includes(marker));
  });

  it('refuses anyone else: another person, an admin API key, no token; and another namespace', async () => {
    const body = { payloads: [wire(sealed)] };
    const person = await alice.post('/codec/decode', body);
    assert.equal(person.status, 403, person.text);
    assert.ok(!person.text.includes(marker));
    const { key } = await createApiKey(admin, ['artifact:read', 'artifact:write', 'artifact:manage', 'artifact:invoke']);
    const byKey = await fetch(`${platform.url}/codec/decode`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(byKey.status, 403);
    const anonymous = await platform.api.post('/codec/decode', body);
    assert.equal(anonymous.status, 401, anonymous.text);
    assert.equal(anonymous.headers.get('content-type'), 'application/problem+json');
    const other = await admin.request('POST', '/codec/decode', { body: body, headers: { 'x-namespace': 'someone-else' } });
    assert.equal(other.status, 403, other.text);
    assert.equal(other.body.type, 'urn:platform:problem:codec-namespace-refused');
  });

  it('encodes, decodes its own output, and answers bad input with problems', async () => {
    const clear = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"hi"').toString('base64') };
    const enc = await admin.post('/codec/encode', { payloads: [clear] });
    assert.equal(enc.status, 200, enc.text);
    assert.equal(Buffer.from(enc.body.payloads[0].metadata.encoding, 'base64').toString(), encryptedEncoding);
    const dec = await admin.post('/codec/decode', enc.body);
    assert.deepEqual(dec.body.payloads, [clear]);
    // A payload sealed under a key that is not configured, a tampered one, bad shapes, too many.
    const foreign = (await new EncryptionCodec({ current: randomBytes(32), previous: [] }).encode([sealed]))[0]!;
    const unknown = await admin.post('/codec/decode', { payloads: [wire(foreign)] });
    assert.equal(unknown.status, 422, unknown.text);
    assert.equal(unknown.body.type, 'urn:platform:problem:codec-unknown-key');
    assert.match(unknown.body.detail, /PLATFORM_PREVIOUS_MASTER_KEYS/);
    const data = Buffer.from(sealed.data!);
    data[20] = data[20]! ^ 1;
    const tampered = await admin.post('/codec/decode', { payloads: [{ ...wire(sealed), data: data.toString('base64') }] });
    assert.equal(tampered.status, 422, tampered.text);
    assert.equal(tampered.body.type, 'urn:platform:problem:codec-undecodable');
    for (const bad of [{}, { payloads: 'x' }, { payloads: [{ data: 'not base64!' }] }, { payloads: [], extra: 1 }]) {
      const r = await admin.post('/codec/decode', bad);
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.equal(r.body.type, 'urn:platform:problem:validation-error');
    }
    const many = await admin.post('/codec/decode', {
      payloads: Array.from({ length: platform.config.CODEC_MAX_PAYLOADS + 1 }, () => clear),
    });
    assert.equal(many.status, 400, many.text);
  });
});

describe('key rotation', () => {
  it('a history written before a rotation replays, and its payloads decode, with the previous key; without it, it fails clearly', async () => {
    const before = keyEncryptionKeys(platform.config).current;
    const next = randomBytes(32);
    const commit = histories.find((h) => h.workflowId.startsWith('commit-'))!;
    const bundle = { codePath: process.env.TEST_WORKFLOW_BUNDLE! };
    const rotated = new EncryptionCodec({ current: next, previous: [before] });
    await Worker.runReplayHistory(
      { workflowBundle: bundle, dataConverter: { payloadCodecs: [rotated] } },
      commit.history,
      commit.workflowId,
    );
    const payloads = payloadsIn(commit.history);
    const keyIds = new Set(payloads.map((p) => text(p.metadata![keyIdKey])));
    assert.notEqual([...keyIds][0], rotated.currentKeyId, 'written under the old key');
    assert.ok((await rotated.decode(payloads)).some((p) => text(p.data).includes(marker)));

    const withoutOld = new EncryptionCodec({ current: next, previous: [] });
    await assert.rejects(withoutOld.decode(payloads), /which is not configured/);
    await assert.rejects(
      Worker.runReplayHistory(
        { workflowBundle: bundle, dataConverter: { payloadCodecs: [withoutOld] } },
        commit.history,
        commit.workflowId,
      ),
    );
  });
});
