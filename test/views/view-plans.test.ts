// What a view's results cost (issue #36): with its sources holding a few thousand artifacts and
// everyone else many more, every statement GET /artifacts/{id}/results sends the embedded store reads
// through an index (no whole-table read) and reads about as many rows as the view's limit asks for,
// for each order. No timing: the plans and the rows read are the assertion.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { v7 as uuidv7 } from 'uuid';
import { appendKey, type ArtifactDoc } from '../../src/store/artifacts.js';
import type { PgStoreClient } from '../../src/store/postgres/client.js';
import { ViewQueryStore } from '../../src/store/view-queries.js';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { analyze, recordStatements, wholeTableReads, type Recorded } from '../helpers/query-plans.js';

const viewType = 'application/vnd.platform.view+json';
/** Artifacts in the view's source, and in the other workspaces (everyone else's data). */
const sizes = { source: 2000, others: 6000, otherWorkspaces: 20 };
/** Rows a statement may read beyond those it returns (the view's own filter passes over some). */
const extraRowsAllowed = 300;

let platform: TestPlatform;
let alice: Api & { userId: string };
let source: string;
const pg = () => (platform.services.store as PgStoreClient).engine;

function artifacts(collectionId: string, owner: string, count: number): ArtifactDoc[] {
  const docs: ArtifactDoc[] = [];
  let last: string | null = null;
  const start = Date.now() - count * 1000;
  for (let i = 0; i < count; i++) {
    const at = new Date(start + ((i * 7919) % count) * 1000); // updated out of creation order
    docs.push({
      _id: uuidv7(),
      title: `Note ${(i * 104729) % count}`,
      content_type: i % 10 === 0 ? 'image/png' : i % 2 ? 'text/markdown' : 'text/plain',
      content: `note ${i}`,
      context: { tags: i % 3 === 0 ? ['alpha', 'beta'] : ['beta'], status: i % 2 ? 'open' : 'done' },
      collection_id: collectionId,
      container_kind: 'workspace',
      order_key: (last = appendKey(last)),
      revision: 1,
      provenance: {
        created_by: owner,
        created_at: at,
        updated_by: owner,
        updated_at: at,
        source: { kind: 'api', request_id: randomUUID() },
      },
    });
  }
  return docs;
}

async function insertAll(docs: ArtifactDoc[]): Promise<void> {
  for (let i = 0; i < docs.length; i += 500)
    await platform.services.db.collection<ArtifactDoc>('artifacts').insertMany(docs.slice(i, i + 500));
}

before(async () => {
  platform = await startPlatform({}, { worker: false });
  alice = await platform.newUser();
  source = (await alice.post('/workspaces', { name: 'Large' })).body.id;
  await insertAll(artifacts(source, alice.userId, sizes.source));
  const bob = await platform.newUser();
  for (let w = 0; w < sizes.otherWorkspaces; w++) {
    const id = (await bob.post('/workspaces', { name: `Other ${w}` })).body.id;
    await insertAll(artifacts(id, bob.userId, sizes.others / sizes.otherWorkspaces));
  }
  await analyze(platform.services.store, platform.config.MONGODB_DB);
});
after(() => platform?.close());

/** Rows each scan of a statement read (kept or filtered out), and the rows it returned, when run (EXPLAIN ANALYZE). */
async function rowsRead(statement: Recorded): Promise<{ read: number; returned: number }> {
  type Node = { 'Node Type': string; 'Actual Rows'?: number; 'Actual Loops'?: number; 'Rows Removed by Filter'?: number; Plans?: Node[] };
  const { rows } = await pg().query('explain', `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, statement.values);
  const plan = (rows[0]!['QUERY PLAN'] as { Plan: Node }[])[0]!.Plan;
  let read = 0;
  const walk = (node: Node) => {
    if (node['Node Type'].endsWith('Scan') && node['Node Type'] !== 'Bitmap Index Scan')
      read += ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan);
  return { read, returned: plan['Actual Rows'] ?? 0 };
}

/** Results of a new view with `content`, checking every statement's plan, and that the artifacts read in all are at most `maxRows`. */
async function bounded(content: object, maxRows: number): Promise<{ items: { title: string }[] }> {
  const created = await alice.post('/artifacts', {
    title: 'v',
    content_type: viewType,
    content: JSON.stringify(content),
    collection_id: source,
  });
  assert.equal(created.status, 201, created.text);
  const recording = recordStatements(platform.services.store);
  let reply;
  let statements: Recorded[];
  try {
    reply = await alice.get(`/artifacts/${created.body.id}/results`);
  } finally {
    statements = recording.stop();
  }
  assert.equal(reply.status, 200, reply.text);
  const artifactReads = statements.filter((s) => s.text.includes('"artifacts"'));
  assert.ok(artifactReads.length > 0, 'the results were read from the artifacts');
  const whole = await wholeTableReads(platform.services.store, platform.config.MONGODB_DB, statements);
  assert.deepEqual(whole, [], 'no whole-table read');
  let total = 0;
  const each: string[] = [];
  for (const s of artifactReads) {
    const { read, returned } = await rowsRead(s);
    total += read;
    each.push(`${read}: ${s.text.replace(/\s+/g, ' ').slice(-120)}`);
    assert.ok(read <= returned + extraRowsAllowed, `${read} rows read for ${returned} returned: ${s.text.replace(/\s+/g, ' ')}`);
  }
  assert.ok(total <= maxRows, `${total} artifact rows read in all, for at most ${maxRows}:\n${each.join('\n')}`);
  return reply.body;
}

describe("a view's results cost what the view asks for", () => {
  for (const sort of ['updated_desc', 'created_desc', 'title_asc', 'position']) {
    it(`${sort}: the first 50, through an index, reading about 50 rows`, async () => {
      const r = await bounded({ sources: { workspaces: [source] }, sort, limit: 50 }, 55);
      assert.equal(r.items.length, 50);
    });
  }

  it('with content types, tags and context fields: rows read as far as the filter needs, no further', async () => {
    const r = await bounded(
      {
        sources: { workspaces: [source] },
        filter: { content_types: ['text/*'], tags: ['alpha'], context: { status: 'open' } },
        sort: 'updated_desc',
        limit: 20,
      },
      400,
    );
    assert.equal(r.items.length, 20);
  });

  for (const sort of ['updated_desc', 'created_desc', 'title_asc', 'position']) {
    it(`${sort} with a filter keeping 1 in 6: page after page through the index, as far as the filter needs`, async () => {
      const r = await bounded(
        { sources: { workspaces: [source] }, filter: { tags: ['alpha'], context: { status: 'open' } }, sort, limit: 50 },
        500,
      );
      assert.equal(r.items.length, 50);
    });
  }

  it('the largest limit, 200', async () => {
    const r = await bounded({ sources: { workspaces: [source] }, sort: 'title_asc', limit: 200 }, 205);
    assert.equal(r.items.length, 200);
  });

  it('stops reading a source at its scan bound, saying where', async () => {
    const store = new ViewQueryStore(platform.services.db);
    const none = await store.first({ containerId: source, order: 'position', want: 10, keep: () => false, firstRead: 10, maxScan: 300 });
    assert.deepEqual(none.rows, []);
    const inOrder = await store.first({ containerId: source, order: 'position', want: 300, keep: () => true, firstRead: 300 });
    assert.equal(none.cutAt?._id, inOrder.rows[299]!._id, 'the last row read');
    const few = await store.first({ containerId: source, order: 'position', want: 5, keep: (d) => d.title.endsWith('7'), firstRead: 10 });
    assert.equal(few.rows.length, 5);
    assert.equal(few.cutAt, null);
    assert.ok(
      few.rows.every((d) => d.title.endsWith('7') && d.content === undefined),
      'kept rows, without their content',
    );
  });

  it('reads on past rows tied on the order key (one title, one update time), each row once', async () => {
    const w = (await alice.post('/workspaces', { name: 'Ties' })).body.id;
    const at = new Date('2026-01-01T00:00:00.000Z');
    const docs = artifacts(w, alice.userId, 450).map((d) => ({ ...d, title: 'Same', provenance: { ...d.provenance, updated_at: at } }));
    await insertAll(docs);
    const store = new ViewQueryStore(platform.services.db);
    for (const order of ['title_asc', 'updated_desc'] as const) {
      const all = await store.first({ containerId: w, order, want: 451, keep: () => true, firstRead: 10 });
      const ids = all.rows.map((d) => d._id);
      assert.equal(new Set(ids).size, 450, `${order}: every row once`);
      const sorted = [...ids].sort();
      assert.deepEqual(ids, order === 'title_asc' ? sorted : sorted.reverse(), `${order}: ties in id order`);
      const kept = await store.first({
        containerId: w,
        order,
        want: 20,
        keep: (d) => d.title === 'Same' && d._id.endsWith('0'),
        firstRead: 10,
      });
      assert.ok(kept.rows.length > 0 && kept.rows.every((d) => d._id.endsWith('0')));
    }
  });
});
