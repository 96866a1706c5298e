// Every read after an acknowledged write reflects it (issue #30), across processes and under load: REST
// edits of drafts from two API processes (this one and a second real API process), an agent's
// updates applied in a worker process, and notes whose type server's on_create enrichment the worker
// writes while they are edited, with other clients loading the same engine meanwhile, over a few
// rounds. Each acknowledged edit is read back at once from the other API process; afterwards every
// read (GET from both processes, MCP get_artifact) answers the last revision and its content, the
// history holds each write once, and no enrichment is lost.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { agentId } from '../../src/invocations/agents/registry.js';
import { apiProcess, type ApiProcess } from '../helpers/api-process.js';
import { Api, eventually, type Reply } from '../helpers/http.js';
import { noteTypeServer, registerServer } from '../helpers/mcp-servers.js';
import { adminEmail, adminPassword, startPlatform, type TestPlatform } from '../helpers/platform.js';
import { workerProcess } from '../helpers/worker-process.js';

const tag = agentId('tag-keywords');
const noteType = 'application/vnd.example.note+json';
const rounds = 3;
const plainDrafts = 3;
const notes = 2;
const editsPerProcess = 3;
const loadClients = 4;

let platform: TestPlatform;
let replica: ApiProcess;
let worker: ChildProcess;
let a: Api;
let b: Api;
let ws: string;
let loadWs: string;

before(async () => {
  const stdio = { ALLOW_STDIO_MCP_SERVERS: 'true' };
  platform = await startPlatform(stdio, { worker: false });
  [replica, worker] = await Promise.all([apiProcess(platform, stdio), workerProcess(platform, stdio)]);
  a = await platform.admin();
  b = await new Api(replica.url).login(adminEmail, adminPassword);
  ws = (await a.post('/workspaces', { name: 'read after write' })).body.id as string;
  loadWs = (await a.post('/workspaces', { name: 'load' })).body.id as string;
  const server = await registerServer(a, ws, noteTypeServer, 'note types');
  // on_create is called once the server's types are in the catalog.
  await eventually(async () => ((await platform.services.mcpCatalog.get(server))?.content_types.length ?? 0) > 0);
});
after(async () => {
  worker?.kill('SIGTERM');
  await replica?.stop();
  await platform?.close();
});

/** Other clients on the same engine until `done`: creates, edits, reads, lists and searches, through both processes. */
async function load(done: () => boolean): Promise<number> {
  let requests = 0;
  await Promise.all(
    Array.from({ length: loadClients }, async (_, i) => {
      const api = i % 2 ? b : a;
      while (!done()) {
        const r = await api.post('/artifacts', { title: `load ${i}`, content_type: 'text/plain', content: 'load', collection_id: loadWs });
        if (r.status === 201) {
          await api.patch(`/artifacts/${r.body.id}`, { content: `load ${requests}` });
          await api.get(`/artifacts/${r.body.id}`);
        }
        await api.get(`/artifacts?collection_id=${loadWs}&limit=20`);
        await api.post('/artifacts/search', { query: 'race between editors', limit: 5 });
        requests += 5;
      }
    }),
  );
  return requests;
}

async function mcpGet(api: Api, id: string): Promise<{ revision: number; title: string }> {
  const r = await api.request('POST', '/mcp', {
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_artifact', arguments: { id } } },
    headers: { accept: 'application/json, text/event-stream' },
  });
  assert.equal(r.status, 200, r.text);
  const result = r.body.result as { structuredContent?: { revision: number; title: string }; content: { text: string }[] };
  return result.structuredContent ?? (JSON.parse(result.content[0]!.text) as { revision: number; title: string });
}

interface Revision {
  revision: number;
  title: string;
  provenance: { source: { kind: string; lifecycle?: string } };
}

describe('reads after acknowledged writes, across API processes and a worker, under load', () => {
  for (let round = 1; round <= rounds; round++) {
    it(`round ${round}: every read shows the last acknowledged revision`, async () => {
      const ids: string[] = [];
      const isNote = new Set<string>();
      for (let i = 0; i < plainDrafts + notes; i++) {
        const note = i >= plainDrafts;
        const r = await a.post('/artifacts', {
          title: `draft ${round}.${i}`,
          content_type: note ? noteType : 'text/markdown',
          content: note
            ? JSON.stringify({ heading: 'Race', body: 'A race between editors and an agent.', tags: ['race'] })
            : 'A race between editors and an agent.',
          collection_id: ws,
        });
        assert.equal(r.status, 201, r.text);
        ids.push(r.body.id);
        if (note) isNote.add(r.body.id);
      }
      const acknowledged = new Map<string, number>(ids.map((id) => [id, 0]));
      const stale: string[] = [];
      const failures: string[] = [];

      // Each edit, once acknowledged, is read back at once through the other process.
      const edits = (api: Api, other: Api, name: string) =>
        ids.map(async (id) => {
          for (let i = 0; i < editsPerProcess; i++) {
            const r: Reply = await api.patch(`/artifacts/${id}`, { title: `${name} edit ${i}` });
            if (r.status !== 200) {
              failures.push(`${name} PATCH ${r.status} ${r.text}`);
              continue;
            }
            acknowledged.set(id, acknowledged.get(id)! + 1);
            const back = await other.get(`/artifacts/${id}`);
            if (back.status !== 200 || back.body.revision < r.body.revision)
              stale.push(`${id}: revision ${r.body.revision} acknowledged, then read back as ${back.body?.revision} (${back.status})`);
          }
        });
      const agent = async () => {
        for (let k = 0; k < 2; k++) {
          const r = await a.post(`/artifacts/${tag}/invoke`, {
            workspace_id: ws,
            mode: 'apply',
            params: { rules: { [`round${round}x${k}`]: ['race'] } },
          });
          assert.equal(r.status, 200, r.text);
          for (const action of r.body.actions as { status: string; artifact_id: string }[]) {
            if (action.status === 'applied' && acknowledged.has(action.artifact_id))
              acknowledged.set(action.artifact_id, acknowledged.get(action.artifact_id)! + 1);
          }
        }
      };
      let writing = true;
      const loaded = load(() => !writing);
      await Promise.all([...edits(a, b, 'a'), ...edits(b, a, 'b'), agent()]);
      writing = false;
      const loadRequests = await loaded;
      assert.deepEqual(failures, []);
      assert.deepEqual(stale, [], 'an acknowledged edit was missing from the read that followed it');

      // The notes' enrichments are made by the worker meanwhile: wait for each, then check everything.
      for (const id of isNote) await eventually(async () => (await a.get(`/artifacts/${id}`)).body.context?.word_count !== undefined);
      for (const id of ids) {
        const history = await a.get(`/artifacts/${id}/revisions?limit=200`);
        assert.equal(history.status, 200, history.text);
        const revisions = history.body.items as Revision[];
        const last = revisions.at(-1)!;
        const enrichments = revisions.filter((r) => r.provenance.source.lifecycle === 'on_create').length;
        assert.equal(enrichments, isNote.has(id) ? 1 : 0, `draft ${id}: ${enrichments} enrichment revisions`);
        assert.deepEqual(
          revisions.map((r) => r.revision),
          Array.from({ length: 1 + acknowledged.get(id)! + enrichments }, (_, i) => i + 1),
          `draft ${id}: ${acknowledged.get(id)} writes acknowledged`,
        );
        for (const [name, api] of [
          ['this API process', a],
          ['the other API process', b],
        ] as const) {
          const got = await api.get(`/artifacts/${id}`);
          assert.equal(got.status, 200, got.text);
          assert.equal(got.body.revision, last.revision, `draft ${id} read through ${name}`);
          assert.equal(got.body.title, last.title);
          assert.equal(got.headers.get('etag'), `"${last.revision}"`);
          if (isNote.has(id)) assert.notEqual(got.body.context.word_count, undefined, `draft ${id}: the enrichment was lost`);
        }
        const viaMcp = await mcpGet(b, id);
        assert.equal(viaMcp.revision, last.revision);
        assert.equal(viaMcp.title, last.title);
      }
      assert.ok(loadRequests > 0, 'no load ran alongside the writes');
      const writes = [...acknowledged.values()].reduce((n, k) => n + k, 0);
      console.log(`[round ${round}] ${writes} writes acknowledged over ${ids.length} drafts, ${loadRequests} load requests alongside`);
    });
  }
});
