// The project's own fuzz run (issue #16), bounded for CI: thousands of mutated bodies over the write
// endpoints (REST and the MCP tools that write), seeded and repeatable. Never a 5xx; every 4xx a
// problem with a stable type; and nothing written but by the requests that were accepted.
// Repeat a run with FUZZ_SEED=<seed printed below>; FUZZ_CASES sets how many bodies (default 3,600).
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { fieldMutations, mutateSendable, prng, write, type Body, type Rng, type Sendable } from '../helpers/fuzz.js';

const seed = Number(process.env.FUZZ_SEED ?? randomInt(2 ** 31));
const cases = Number(process.env.FUZZ_CASES ?? 3600);
const lanes = 4;

let platform: TestPlatform;
let alice: Api & { userId: string };
let collection: string;
/** Per lane: a workspace and a draft that only this lane writes, so each lane's writes are ordered. */
const lane: { ws: string; draft: string; previewWs: string }[] = [];

interface Endpoint {
  name: string;
  method: 'POST' | 'PATCH';
  path: (l: number) => string;
  body: (l: number, rng: Rng) => Body;
  /** The field holding a free-form object, which most mutations aim at. */
  free: string | null;
  /** An MCP tool: the body becomes the tool call's arguments. */
  tool?: string;
}

const artifactBody = (l: number, rng: Rng): Body => {
  const type = rng.pick(['text/plain', 'text/markdown', 'application/json']);
  return {
    title: `fuzz ${rng.int(1e6)}`,
    content_type: type,
    content: type === 'application/json' ? '{"a":[1,{"b":2}]}' : 'some text',
    collection_id: lane[l]!.ws,
    context: { k: 'v', n: 1, list: [1, { a: 2 }] },
  };
};
const draftPatch = (l: number, rng: Rng): Body => ({
  title: `patched ${rng.int(1e6)}`,
  content: 'new text',
  context: { tag: rng.pick(['a', 'b']) },
});

const endpoints: Endpoint[] = [
  { name: 'POST /artifacts', method: 'POST', path: () => '/artifacts', body: artifactBody, free: 'context' },
  { name: 'PATCH /artifacts/{id}', method: 'PATCH', path: (l) => `/artifacts/${lane[l]!.draft}`, body: draftPatch, free: 'context' },
  {
    name: 'POST /artifacts/{id}/move',
    method: 'POST',
    path: (l) => `/artifacts/${lane[l]!.draft}/move`,
    body: () => ({ after_id: null }),
    free: null,
  },
  {
    name: 'POST /workspaces',
    method: 'POST',
    path: () => '/workspaces',
    body: (_, rng) => ({ name: `ws ${rng.int(1e6)}`, description: 'd', metadata: { team: 'x', tags: ['a'] } }),
    free: 'metadata',
  },
  {
    name: 'PATCH /workspaces/{id}',
    method: 'PATCH',
    path: (l) => `/workspaces/${lane[l]!.ws}`,
    body: () => ({ description: 'changed', metadata: { n: 2 } }),
    free: 'metadata',
  },
  {
    name: 'POST /secrets',
    method: 'POST',
    path: () => '/secrets',
    body: (_, rng) => ({ name: `s${rng.int(1e6)}`, value: 'secret value' }),
    free: null,
  },
  { name: 'POST /api-keys', method: 'POST', path: () => '/api-keys', body: () => ({ name: 'k', scopes: ['artifact:read'] }), free: null },
  {
    name: 'POST /artifacts/search',
    method: 'POST',
    path: () => '/artifacts/search',
    body: (_, rng) => ({ query: rng.pick(['fuzz', 'some text', 'patched']), limit: 5 }),
    free: 'aperture',
  },
  {
    name: 'POST /workspaces/{id}/commit-preview',
    method: 'POST',
    path: (l) => `/workspaces/${lane[l]!.previewWs}/commit-preview`,
    body: () => ({ collection_id: collection }),
    free: null,
  },
  { name: 'MCP create_artifact', method: 'POST', path: () => '/mcp', body: artifactBody, free: 'context', tool: 'create_artifact' },
  {
    name: 'MCP update_artifact',
    method: 'POST',
    path: () => '/mcp',
    body: (l, rng) => ({ id: lane[l]!.draft, ...draftPatch(l, rng) }),
    free: 'context',
    tool: 'update_artifact',
  },
];

interface Case {
  index: number;
  lane: number;
  endpoint: Endpoint;
  mutations: string[];
  send: Sendable;
}

/** Case `index`: an endpoint, a valid body, then none to three mutations (a few stay valid, so writes happen too). */
function makeCase(index: number, rng: Rng): Case {
  const l = index % lanes;
  const endpoint = rng.pick(endpoints);
  const body = endpoint.body(l, rng);
  const mutations: string[] = [];
  const count = rng.chance(0.15) ? 0 : 1 + rng.int(3);
  const fieldNames = Object.keys(fieldMutations);
  for (let i = 0; i < count && !rng.chance(0.2); i++) mutations.push(fieldMutations[rng.pick(fieldNames)]!(body, rng, endpoint.free));
  const payload = endpoint.tool
    ? { jsonrpc: '2.0', id: index, method: 'tools/call', params: { name: endpoint.tool, arguments: body } }
    : body;
  const send: Sendable = { text: write(payload as Body), contentType: 'application/json', query: '' };
  if (count > 0 && rng.chance(0.25)) mutations.push(mutateSendable(send, rng));
  return { index, lane: l, endpoint, mutations, send };
}

interface Outcome {
  status: number;
  contentType: string;
  body: Record<string, any> | undefined;
}

async function deliver(c: Case): Promise<Outcome> {
  const headers: Record<string, string> = { authorization: `Bearer ${alice.token}` };
  if (c.send.contentType !== null) headers['content-type'] = c.send.contentType;
  if (c.endpoint.tool) headers.accept = 'application/json, text/event-stream';
  const res = await fetch(`${platform.url}${c.endpoint.path(c.lane)}${c.send.query}`, {
    method: c.endpoint.method,
    headers,
    body: c.send.bytes ? new Uint8Array(c.send.bytes) : c.send.text,
  });
  const text = await res.text();
  let body: Record<string, any> | undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body };
}

/** What a refusal must look like: a problem with a type, or (from the MCP endpoint only) a JSON-RPC error. */
function wellFormedRefusal(c: Case, o: Outcome): boolean {
  if (o.contentType.startsWith('application/problem+json'))
    return typeof o.body?.type === 'string' && o.body.type.startsWith('urn:platform:problem:');
  return Boolean(c.endpoint.tool && o.body?.jsonrpc === '2.0' && o.body.error);
}

/** The artifact an accepted write answered with: REST bodies, or an MCP tool's structured result. */
function artifactOf(c: Case, o: Outcome): Record<string, any> | null {
  if (o.status < 200 || o.status >= 300) return null;
  if (!c.endpoint.tool) return o.body ?? null;
  const result = o.body?.result;
  return result && !result.isError ? result.structuredContent : null;
}

const counts = async () => {
  const db = platform.services.db;
  const names = ['artifacts', 'workspaces', 'collections', 'secrets', 'api_keys', 'artifact_versions', 'commits', 'users'] as const;
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await db.collection(n).countDocuments()] as const))) as Record<
    (typeof names)[number],
    number
  >;
};

before(async () => {
  // Thousands of requests a minute from one person: the per-principal rate limit (tested on its own) is off here.
  platform = await startPlatform({ RATE_LIMIT_PER_MINUTE: '0' }, { worker: false });
  alice = await platform.newUser();
  collection = (await alice.post('/collections', { name: 'fuzz target' })).body.id;
  // The default workspace is made on first use: made now, so no refused request is the one that makes it.
  assert.equal((await alice.post('/artifacts', { title: 'first', content_type: 'text/plain', content: 'x' })).status, 201);
  for (let l = 0; l < lanes; l++) {
    const ws = (await alice.post('/workspaces', { name: `lane ${l}` })).body.id;
    const previewWs = (await alice.post('/workspaces', { name: `preview ${l}` })).body.id;
    await alice.post('/artifacts', { title: 'to preview', content_type: 'text/plain', content: 'x', collection_id: previewWs });
    const draft = (await alice.post('/artifacts', { title: 'lane draft', content_type: 'text/plain', content: 'x', collection_id: ws }))
      .body.id;
    lane.push({ ws, draft, previewWs });
  }
});
after(() => platform.close());

describe('fuzzing the write endpoints', () => {
  it(`sends ${cases} mutated bodies: no 5xx, problems with a type, nothing written by a refusal`, async (t) => {
    t.diagnostic(`FUZZ_SEED=${seed} FUZZ_CASES=${cases}`);
    console.log(`[fuzz] seed ${seed}, ${cases} cases (repeat with FUZZ_SEED=${seed})`);
    const rng = prng(seed);
    const all = Array.from({ length: cases }, (_, i) => makeCase(i, rng));
    const before = await counts();
    const failures: string[] = [];
    const created = { artifacts: new Set<string>(), workspaces: 0, secrets: 0, api_keys: 0 };
    const lastDraft: (Record<string, any> | null)[] = lane.map(() => null);
    const lastWorkspace: (Record<string, any> | null)[] = lane.map(() => null);
    const statuses = new Map<number, number>();
    const started = Date.now();

    await Promise.all(
      Array.from({ length: lanes }, async (_, l) => {
        for (const c of all.filter((x) => x.lane === l)) {
          const o = await deliver(c);
          statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1);
          const what = `case ${c.index} ${c.endpoint.name} [${c.mutations.join(', ') || 'valid'}] → ${o.status} ${JSON.stringify(o.body)?.slice(0, 300)}`;
          if (o.status >= 500) failures.push(`5xx: ${what}`);
          else if (o.status >= 400 && !wellFormedRefusal(c, o)) failures.push(`not a problem: ${what}`);
          const artifact = artifactOf(c, o);
          if (!artifact) continue;
          if (c.endpoint.name === 'POST /workspaces') created.workspaces++;
          else if (c.endpoint.name === 'PATCH /workspaces/{id}') lastWorkspace[l] = artifact;
          else if (c.endpoint.name === 'POST /secrets') created.secrets++;
          else if (c.endpoint.name === 'POST /api-keys') created.api_keys++;
          else if (c.endpoint.name.endsWith('create_artifact') || c.endpoint.name === 'POST /artifacts') created.artifacts.add(artifact.id);
          else if (artifact.id === lane[l]!.draft) lastDraft[l] = artifact;
        }
      }),
    );
    console.log(
      `[fuzz] ${cases} cases in ${Date.now() - started} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
    assert.deepEqual(failures.slice(0, 10), [], `seed ${seed}: ${failures.length} bad answers`);

    // Accounting: every stored change is one an accepted request answered with.
    const now = await counts();
    assert.deepEqual(now, {
      ...before,
      artifacts: before.artifacts + created.artifacts.size,
      workspaces: before.workspaces + created.workspaces,
      secrets: before.secrets + created.secrets,
      api_keys: before.api_keys + created.api_keys,
    });
    for (const id of created.artifacts) assert.ok(await platform.services.artifacts.get(id), `created artifact ${id} is stored`);
    for (let l = 0; l < lanes; l++) {
      const draft = (await alice.get(`/artifacts/${lane[l]!.draft}`)).body;
      if (lastDraft[l]) assert.deepEqual(draft, lastDraft[l], `lane ${l}: the draft is what the last accepted write answered`);
      else assert.deepEqual([draft.title, draft.revision], ['lane draft', 1], `lane ${l}: no accepted write, no change`);
      const ws = (await alice.get(`/workspaces/${lane[l]!.ws}`)).body;
      if (lastWorkspace[l]) assert.deepEqual(ws, lastWorkspace[l], `lane ${l}: the workspace is what the last accepted patch answered`);
      else assert.deepEqual(ws.metadata, {}, `lane ${l}: no accepted patch, no change`);
    }
  });
});
