import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/kernel/logging/logger.js';
import { bootstrap, closeServices, createServices } from '../../src/main/services.js';
import { SearchChangeStore } from '../../src/store/search-changes.js';
import { eventually, type Api } from '../helpers/http.js';
import { createApiKey } from '../helpers/credentials.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let bob: Api & { userId: string };
let ws: string;

before(async () => {
  platform = await startPlatform({ SEARCH_SYNC_INTERVAL_MS: '100' });
  [alice, bob] = await Promise.all([platform.newUser(), platform.newUser()]);
  ws = (await alice.post('/workspaces', { name: 'aero' })).body.id;
});
after(() => platform.close());

async function create(api: Api, collection: string, title: string, content: string, extra: Record<string, unknown> = {}): Promise<string> {
  const reply = await api.post('/artifacts', { title, content_type: 'text/plain', content, collection_id: collection, ...extra });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id;
}

const search = (api: Api, body: Record<string, unknown>) => api.post('/artifacts/search', body);
const ids = (reply: { body: { results: { id: string }[] } }) => reply.body.results.map((r) => r.id);

/** Waits until the indexing workflow has stored this artifact's embedding and the API's index has applied it. */
const embedded = (id: string) => eventually(async () => platform.services.search.index.hasVector(id), 30_000, `embedding of ${id}`);

describe('POST /artifacts/search', () => {
  it('finds artifacts and says which retriever ranked them where', async () => {
    const id = await create(alice, ws, 'Boundary layer transition', 'Laminar to turbulent transition on a flat plate at supersonic speed.');
    await embedded(id);
    const reply = await search(alice, { query: 'turbulent boundary layer transition' });
    assert.equal(reply.status, 200, reply.text);
    const hit = reply.body.results[0];
    assert.equal(hit.id, id);
    assert.equal(hit.title, 'Boundary layer transition');
    assert.deepEqual(hit.container, { kind: 'workspace', id: ws });
    assert.equal(hit.retrievers.lexical.rank, 1);
    assert.equal(hit.retrievers.semantic.rank, 1);
    // Weighted RRF: MiniLM's ranking counts 0.5 (its measured weight), the lexical one 1.
    assert.equal(reply.body.retrievers.semantic.embedder, 'all-MiniLM-L6-v2-int8');
    assert.equal(reply.body.retrievers.semantic.weight, 0.5);
    assert.equal(reply.body.retrievers.lexical.weight, 1);
    assert.equal(hit.score, 1 / 61 + 0.5 / 61);
    assert.equal(typeof reply.body.took_ms, 'number');
  });

  it('finds by meaning when no word matches, once the embedding is stored', async () => {
    const id = await create(alice, ws, 'Household pets', 'The cat sat on the mat by the fire.');
    await embedded(id);
    const reply = await search(alice, { query: 'kitten resting on a rug', aperture: { enabled: false } });
    const hit = reply.body.results.find((r: { id: string }) => r.id === id);
    assert.ok(hit, JSON.stringify(reply.body.results));
    assert.equal(hit.retrievers.lexical, undefined, 'no shared word');
    assert.ok(hit.retrievers.semantic.score > 0.3);
  });

  it('finds nothing for nonsense: unrelated neighbours fall under the similarity floor', async () => {
    const reply = await search(alice, { query: 'xyzzy plugh' });
    assert.deepEqual(reply.body.results, []);
    assert.ok(reply.body.retrievers.semantic.candidates > 0, 'kNN always returns neighbours');
    assert.equal(reply.body.retrievers.semantic.kept, 0);
  });

  it('follows updates and deletes at once', async () => {
    const id = await create(alice, ws, 'Quasar photometry', 'Optical brightness of distant quasars.');
    assert.deepEqual(ids(await search(alice, { query: 'quasar' })).slice(0, 1), [id]);
    await alice.patch(`/artifacts/${id}`, { title: 'Pulsar timing', content: 'Millisecond pulsars as clocks.' });
    const lexicalOnly = (await search(alice, { query: 'quasar' })).body.results.filter(
      (r: { retrievers: { lexical?: unknown } }) => r.retrievers.lexical,
    );
    assert.ok(!lexicalOnly.some((r: { id: string }) => r.id === id), 'the old words are gone from the lexical index');
    assert.equal(ids(await search(alice, { query: 'pulsar timing' }))[0], id);
    assert.equal((await alice.delete(`/artifacts/${id}`)).status, 204);
    assert.ok(!ids(await search(alice, { query: 'pulsar timing' })).includes(id));
  });

  it("never shows another person's artifacts, nor a share without the S grant", async () => {
    const secret = await create(alice, ws, 'Hypersonic scramjet inlet', 'Scramjet inlet design notes.');
    assert.ok(!ids(await search(bob, { query: 'scramjet inlet' })).includes(secret));
    await alice.post(`/workspaces/${ws}/shares`, { person_id: bob.userId, flags: 'R' });
    assert.ok(!ids(await search(bob, { query: 'scramjet inlet' })).includes(secret), 'R alone does not include it in search');
    await alice.post(`/workspaces/${ws}/shares`, { person_id: bob.userId, flags: 'RS' });
    assert.ok(ids(await search(bob, { query: 'scramjet inlet' })).includes(secret));
    await alice.delete(`/workspaces/${ws}/shares/${bob.userId}`);
    assert.ok(!ids(await search(bob, { query: 'scramjet inlet' })).includes(secret));
  });

  it('applies resource filters, fine scopes and request filters', async () => {
    const other = (await alice.post('/workspaces', { name: 'other' })).body.id;
    const inOther = await create(alice, other, 'Rotor blade icing', 'Icing on helicopter rotor blades.');
    const json = (
      await alice.post('/artifacts', {
        title: 'Rotor blade icing data',
        content_type: 'application/json',
        content: '{"icing": true}',
        collection_id: ws,
      })
    ).body.id;
    const text = await create(alice, ws, 'Rotor blade icing tests', 'Wind tunnel icing of rotor blades.');
    const filtered = alice.withToken(
      (await createApiKey(alice, ['search:read', 'artifact:read'], { workspaces: [ws], collections: [] })).key,
    );
    const found = ids(await search(filtered, { query: 'rotor blade icing' }));
    assert.ok(found.includes(text) && found.includes(json) && !found.includes(inOther));
    const textOnly = alice.withToken((await createApiKey(alice, ['search:read', 'resource:text/*:read'])).key);
    const typed = ids(await search(textOnly, { query: 'rotor blade icing' }));
    assert.ok(typed.includes(text) && typed.includes(inOther) && !typed.includes(json));
    const scoped = ids(await search(alice, { query: 'rotor blade icing', workspace_ids: [other] }));
    assert.deepEqual(scoped, [inOther]);
    const byType = ids(await search(alice, { query: 'rotor blade icing', content_types: ['application/json'] }));
    assert.deepEqual(byType, [json]);
    const noRead = alice.withToken((await createApiKey(alice, ['search:read'])).key);
    assert.equal((await search(noRead, { query: 'rotor' })).status, 403);
  });

  it('rejects bad requests with a 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ query: '   ' }, 'query'],
      [{}, 'query'],
      [{ query: 'x', limit: 101 }, 'limit'],
      [{ query: 'x', limit: 0 }, 'limit'],
      [{ query: 'x', preset: 'title-only' }, 'preset'],
      [{ query: 'x', aperture: { enabled: 'yes' } }, 'aperture.enabled'],
      [{ query: 'x', workspace_ids: ['nope'] }, 'workspace_ids.0'],
      [{ query: 'x', everything: true }, 'everything'], // an unknown field is named itself
    ];
    for (const [body, field] of cases) {
      const reply = await search(alice, body);
      assert.equal(reply.status, 400, JSON.stringify(body));
      assert.ok(
        reply.body.invalid_params.some((p: { name: string }) => p.name === field),
        `${field} in ${JSON.stringify(reply.body.invalid_params)}`,
      );
    }
  });
});

describe('index consistency across processes', () => {
  it('applies a burst of changes larger than one page of the change log, each once', async () => {
    const id = await create(alice, ws, 'Burst target', 'One artifact, changed many times.');
    const replica = createServices(platform.config, createLogger('silent'));
    await bootstrap(replica);
    try {
      await replica.search.stop(); // poll by hand
      const changes = new SearchChangeStore(platform.services.db);
      for (let i = 0; i < 2500; i++) await changes.record(id);
      let applied = 0;
      for (let n = await replica.search.poll(); n > 0; n = await replica.search.poll()) applied += n;
      assert.ok(applied >= 2500, `applied ${applied}`);
      assert.equal(await replica.search.poll(), 0, 'nothing twice');
    } finally {
      await closeServices(replica);
    }
  });

  it("does not read back a change it logged itself, and still reads another replica's", async () => {
    const id = await create(alice, ws, 'Own change', 'Logged by the replica that applied it.');
    await embedded(id); // the worker's change (the stored vector) is behind us
    // Its writes' embeddings go to a queue no worker polls: no other process logs a change of it meanwhile.
    const replica = createServices({ ...platform.config, TEMPORAL_TASK_QUEUE: 'no-worker-polls-this' }, createLogger('silent'));
    await bootstrap(replica);
    try {
      await replica.search.stop(); // poll by hand
      while ((await replica.search.poll()) > 0);
      const reads: string[] = [];
      const getMany = replica.artifacts.getMany.bind(replica.artifacts);
      replica.artifacts.getMany = (artifactIds: string[]) => (reads.push(...artifactIds), getMany(artifactIds));
      await replica.search.written((await platform.services.artifacts.get(id))!);
      while ((await replica.search.poll()) > 0);
      assert.deepEqual(
        reads.filter((r) => r === id),
        [],
        'its own change is not read back',
      );
      await new SearchChangeStore(platform.services.db).record(id); // another replica's write
      while ((await replica.search.poll()) > 0);
      assert.deepEqual(
        reads.filter((r) => r === id),
        [id],
        "another replica's change is read once",
      );
    } finally {
      await closeServices(replica);
    }
  });

  it('rebuilds from MongoDB at start, and follows writes made by another replica', async () => {
    const id = await create(alice, ws, 'Shock tube calibration', 'Calibration of a shock tube facility.');
    await embedded(id);
    const replica = createServices(platform.config, createLogger('silent'));
    await bootstrap(replica);
    try {
      const principal = { containerIds: new Set([ws]), contentTypes: null, typeLimits: null };
      const query = (text: string) =>
        replica.search.search({ text, limit: 10, preset: 'balanced', candidates: 100, aperture: null, scope: principal });
      const hit = (await query('shock tube calibration')).hits[0]!;
      assert.equal(hit.id, id, 'rebuilt at start');
      assert.ok(hit.retrievers.semantic, 'with the stored vector');
      const later = await create(alice, ws, 'Arc jet ablation', 'Ablation of heat shields in an arc jet.');
      await eventually(async () => (await query('arc jet ablation')).hits[0]?.id === later, 10_000, 'the other replica to see the write');
      await alice.delete(`/artifacts/${later}`);
      await eventually(
        async () => !(await query('arc jet ablation')).hits.some((h) => h.id === later),
        10_000,
        'the other replica to see the delete',
      );
    } finally {
      await closeServices(replica);
    }
  });
});
