// Plan tests (issue #31, item 2): every hot query of the platform, run against the embedded store
// holding a few thousand documents of every kind, must cost what its request asks for, not what the
// store holds. The store is seeded (mostly straight through the stores, with the documents the
// platform's own write paths build), ANALYZEd, then each hot path is exercised through REST (or the
// background loop's own store call) while every statement the platform sends is recorded. Each
// recorded statement is then EXPLAINed: a plan that reads a whole table (a Seq Scan of 1,000 rows or
// more) fails the test, and so does a statement that, run (EXPLAIN ANALYZE, rolled back), reads far
// more rows than it returns (a deep page that walks the rows before its cursor, a container sorted
// whole for one page). Each failure names the statement. No timing: plans and row counts are the assertion.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Db } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import { mcpServerType } from '../../src/artifacts/content-types/index.js';
import { hashPassword } from '../../src/identity/passwords.js';
import { userPrincipal } from '../../src/identity/principal.js';
import type { ApiKeyDoc } from '../../src/store/api-keys.js';
import { ArtifactStore, appendKey, type ArtifactDoc, type Provenance } from '../../src/store/artifacts.js';
import { commitItems, commitsCollection, type CommitDoc, type CommitItemDoc } from '../../src/store/commits.js';
import { consentId, type ConsentDoc } from '../../src/store/consents.js';
import { ContainerStore, type ContainerDoc } from '../../src/store/containers.js';
import { EmbeddingBacklog, type EmbeddingBacklogDoc } from '../../src/store/embedding-backlog.js';
import type { EventDoc } from '../../src/store/events.js';
import type { CatalogDoc } from '../../src/store/mcp-catalog.js';
import { encodeCursor } from '../../src/store/pagination.js';
import {
  atRevision,
  claimWithOutboxEvent,
  revisionId,
  revisionsCollection,
  revisionState,
  type RevisionDoc,
} from '../../src/store/revisions.js';
import { SearchChangeStore, uuidv7Floor, type SearchChangeDoc } from '../../src/store/search-changes.js';
import type { ServerCredentialDoc } from '../../src/store/server-credentials.js';
import type { SignInEventDoc } from '../../src/store/sign-in-events.js';
import { commitInto } from '../helpers/commit.js';
import { createApiKey, createServerCredential } from '../helpers/credentials.js';
import type { Api } from '../helpers/http.js';
import { adminEmail, adminPassword, startPlatform, type TestPlatform } from '../helpers/platform.js';
import { analyze, recordStatements, wholeTableReads, type Recorded } from '../helpers/query-plans.js';
import type { PgStoreClient } from '../../src/store/postgres/client.js';

/** Sizes of the seeded store: every table a hot query reads holds well over the 1,000 rows a whole-table read is named at. */
const sizes = {
  people: 40,
  /** Artifacts in the administrator's large workspace, and over the other people's workspaces. */
  large: 1500,
  others: 1500,
  otherWorkspaces: 30,
  /** Empty workspaces, and as many collections, of the other people. */
  emptyContainers: 1000,
  mcpServers: 1200,
  collectionArtifacts: 1200,
  commits: 1500,
  commitsWithItems: 120,
  credentials: 1500,
  apiKeys: 1500,
  consents: 1500,
  signInEvents: 3000,
  searchChanges: 3000,
  backlog: 2000,
};

let platform: TestPlatform;
let admin: Api;
let adminId: string;
let db: Db;
/** What the tests read: the large workspace, an empty one, a draft with revisions, a collection artifact, a commit. */
const seeded = {
  large: '',
  empty: '',
  largeDocs: [] as ArtifactDoc[],
  edited: '',
  collectionArtifact: '',
  commit: '',
  /** The administrator's collection the commit went into. */
  collection: '',
  /** The administrator's API key they consented to (the other one is deleted by a test). */
  consentedKey: '',
};

/** Inserts in slices of 250, three at once. */
async function insertAll(collection: string, docs: object[]): Promise<void> {
  const slices: object[][] = [];
  for (let i = 0; i < docs.length; i += 250) slices.push(docs.slice(i, i + 250));
  for (let i = 0; i < slices.length; i += 3)
    await Promise.all(slices.slice(i, i + 3).map((slice) => db.collection(collection).insertMany(slice as never[], { ordered: false })));
}

const source = (): Provenance['source'] => ({ kind: 'api', request_id: randomUUID() });

/**
 * Drafts as ArtifactStore.create and revise leave them once the outbox has relayed their events and
 * the workspace's event workflow recorded them: the artifact at its last revision, one claim per
 * revision (relayed), one event per claim under the workspace's next seq.
 */
function drafts(ws: ContainerDoc, count: number, contentType: (i: number) => string, content: (i: number) => string) {
  const artifacts: ArtifactDoc[] = [];
  const claims: object[] = [];
  const events: EventDoc[] = [];
  let lastKey: string | null = null;
  let seq = 0;
  for (let i = 0; i < count; i++) {
    const now = new Date();
    const created = source();
    let doc: ArtifactDoc = {
      _id: uuidv7(),
      title: `Note ${i} of ${ws.name}`,
      content_type: contentType(i),
      content: content(i),
      context: {},
      collection_id: ws._id,
      container_kind: 'workspace',
      order_key: (lastKey = appendKey(lastKey)),
      revision: 1,
      provenance: { created_by: ws.owner_id, created_at: now, updated_by: ws.owner_id, updated_at: now, source: created },
    };
    const made: RevisionDoc[] = [
      claimWithOutboxEvent(doc, 1, revisionState(doc), { kind: 'artifact_created', actor: ws.owner_id, source: created }),
    ];
    if (i % 5 === 0) {
      // One draft in five edited once.
      const by = source();
      const state = {
        ...revisionState(doc),
        title: `${doc.title} (revised)`,
        provenance: { ...doc.provenance, updated_at: new Date(), source: by },
      };
      made.push(claimWithOutboxEvent(doc, 2, state, { kind: 'artifact_updated', actor: ws.owner_id, changed: ['title'], source: by }));
      doc = atRevision(doc, 2, state);
    }
    artifacts.push(doc);
    for (const claim of made) {
      const { event_waiting: _waiting, ...relayed } = claim;
      claims.push({ ...relayed, event_relayed_at: new Date() });
      const { id, ...event } = claim.event!;
      events.push({ _id: id, ...event, seq: ++seq, recorded_at: new Date() });
    }
  }
  return { artifacts, claims, events };
}

/**
 * Through REST, with the worker: a commit of the administrator's (its items and versions), their
 * server credentials, API keys and consents. The worker is stopped after: nothing runs in the
 * background then but the API's own loops (an indexing run would take the seeded backlog).
 */
async function seedThroughRest(): Promise<void> {
  const col = (await admin.post('/collections', { name: 'Mine' })).body.id as string;
  seeded.collection = col;
  const [published] = await commitInto(
    admin,
    col,
    Array.from({ length: 12 }, (_, i) => ({ title: `Draft ${i}`, content_type: 'text/markdown', content: `# Draft ${i}\n\ntext` })),
  );
  seeded.collectionArtifact = published!;
  const [version] = (await admin.get(`/artifacts/${published}/versions`)).body.items;
  seeded.commit = version.provenance.commit_id;
  assert.ok(seeded.commit, `the version names its commit: ${JSON.stringify(version)}`);
  const cred = await createServerCredential(admin, ['artifact:read']);
  await createServerCredential(admin, ['artifact:read']);
  const key = await createApiKey(admin, ['artifact:read']);
  seeded.consentedKey = key.id;
  await createApiKey(admin, ['artifact:read']);
  for (const [kind, id] of [
    ['server_credential', cred.client_id],
    ['api_key', key.id],
  ])
    assert.equal((await admin.post('/consents', { credential_kind: kind, credential_id: id })).status, 201);

  await platform.stopWorker();
}

async function seed(): Promise<void> {
  const containers = new ContainerStore(db);
  const hash = await hashPassword(randomUUID());
  const people = [adminId];
  for (let i = 1; i < sizes.people; i++) people.push((await platform.services.users.create(`plans-${i}@example.test`, hash, false))._id);
  const ws = (owner: string, name: string) => containers.create('workspace', userPrincipal(owner, false), { name });

  // Workspaces: the administrator's large one and an empty one, and the other people's.
  const large = await ws(adminId, 'Large');
  seeded.large = large._id;
  seeded.empty = (await ws(adminId, 'Empty'))._id;
  const others: ContainerDoc[] = [];
  for (let i = 0; i < sizes.otherWorkspaces; i++) others.push(await ws(people[1 + (i % (people.length - 1))]!, `Workspace ${i}`));

  // Many more workspaces and collections of other people, empty, a few of them shared with the
  // administrator (ContainerStore.create, then a share claimed as ContainerStore.share leaves it).
  const now = new Date();
  const bare: ContainerDoc[] = [];
  const shareClaims: object[] = [];
  for (const kind of ['workspace', 'collection'] as const) {
    for (let i = 0; i < sizes.emptyContainers; i++) {
      const shared = i % 300 === 7;
      const shares = shared ? [{ person_id: adminId, flags: 'RS' }] : [];
      const doc: ContainerDoc = {
        _id: uuidv7(),
        kind,
        name: `${kind} ${i}`,
        description: '',
        metadata: {},
        owner_id: people[1 + (i % (people.length - 1))]!,
        shares,
        readers: shares.map((x) => x.person_id),
        ...(shared ? { shares_version: 1 } : {}),
        last_order_key: null,
        created_at: now,
        updated_at: now,
      };
      bare.push(doc);
      if (shared) shareClaims.push({ _id: `${kind}:${doc._id}:1`, container_id: doc._id, kind, version: 1, shares, claimed_at: now });
    }
  }
  await Promise.all([
    insertAll(
      'workspaces',
      bare.filter((c) => c.kind === 'workspace'),
    ),
    insertAll(
      'collections',
      bare.filter((c) => c.kind === 'collection'),
    ),
    insertAll('container_share_versions', shareClaims),
  ]);

  const rest = seedThroughRest();
  const text = (i: number) => `# Note ${i}\n\nSome text about item ${i}.`;
  const markdown = () => 'text/markdown';
  const serverContent = (i: number) => JSON.stringify({ transport: { type: 'http', url: `https://mcp${i}.example.test/mcp` } });
  const isServer = (i: number) => i >= sizes.large - 2; // the administrator's two MCP servers, at the end of the large workspace
  const parts = [
    drafts(
      large,
      sizes.large,
      (i) => (isServer(i) ? mcpServerType : 'text/markdown'),
      (i) => (isServer(i) ? serverContent(i) : text(i)),
    ),
    ...others.map((w, n) => drafts(w, Math.floor(sizes.others / others.length), markdown, (i) => text(n * 1000 + i))),
    ...others.map((w, n) =>
      drafts(
        w,
        Math.floor(sizes.mcpServers / others.length),
        () => mcpServerType,
        (i) => serverContent(n * 1000 + i),
      ),
    ),
  ];
  const all = (pick: (p: (typeof parts)[number]) => object[]) => parts.flatMap(pick);
  await Promise.all([
    insertAll(
      'artifacts',
      all((p) => p.artifacts),
    ),
    insertAll(
      revisionsCollection(db).collectionName,
      all((p) => p.claims),
    ),
    insertAll(
      'events',
      all((p) => p.events),
    ),
  ]);
  seeded.largeDocs = parts[0]!.artifacts;
  seeded.edited = parts[0]!.artifacts[5]!._id; // i % 5 === 0: two revisions

  // Every server's last listing (McpCatalogStore.put): fresh and of its current revision, so listing
  // the catalog reads it and refreshes none.
  const servers = parts.flatMap((p) => p.artifacts).filter((d) => d.content_type === mcpServerType);
  const catalog = (doc: ArtifactDoc): CatalogDoc => ({
    _id: doc._id,
    workspace_id: doc.collection_id,
    revision: doc.revision,
    server_info: { name: `server ${doc._id.slice(-4)}`, version: '1.0.0' },
    icon: 'data:image/svg+xml,',
    tools: [{ name: 'echo', input_schema: { type: 'object', $schema: 'https://json-schema.org/draft/2020-12/schema' }, icon: 'x' }],
    resources: [],
    content_types: [],
    health: { status: 'ok', checked_at: new Date(), latency_ms: 3 },
    refreshed_at: new Date(),
  });
  for (let i = 0; i < servers.length; i += 16)
    await Promise.all(servers.slice(i, i + 16).map((s) => platform.services.mcpCatalog.put(catalog(s))));

  // A collection of someone else's with its artifacts, each at version 1 (ArtifactStore.create into a collection).
  const otherArtifacts = new ArtifactStore(db);
  const collection = await containers.create('collection', userPrincipal(people[1]!, false), { name: 'Published' });
  for (let i = 0; i < sizes.collectionArtifacts; i += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, sizes.collectionArtifacts - i) }, (_, j) =>
        otherArtifacts.create(userPrincipal(people[1]!, false), collection, {
          title: `Published ${i + j}`,
          content_type: 'text/plain',
          content: text(i + j),
          context: {},
          source: source(),
        }),
      ),
    );
  }

  // Server credentials, API keys and consents of the other people (as their create paths store them).
  const owner = (i: number) => people[1 + (i % (people.length - 1))]!;
  const credentials: ServerCredentialDoc[] = Array.from({ length: sizes.credentials }, (_, i) => ({
    _id: `srv-${i}.ns${i % (people.length - 1)}`,
    name: `server ${i}`,
    server_id: `server-${i % 7}`,
    host_id: 'host-1',
    scopes: ['artifact:read'],
    resource_filters: { workspaces: '*', collections: '*' },
    active: true,
    secret_hash: hash,
    generation: 1,
    owner_id: owner(i),
    created_time: new Date(),
    last_used_at: null,
  }));
  const keys: ApiKeyDoc[] = Array.from({ length: sizes.apiKeys }, (_, i) => ({
    _id: randomUUID().replace(/-/g, ''),
    name: `key ${i}`,
    scopes: ['artifact:read'],
    resource_filters: { workspaces: '*', collections: '*' },
    secret_sha256: createHash('sha256').update(String(i)).digest('hex'),
    owner_id: owner(i),
    created_at: new Date(),
    last_used_at: null,
  }));
  const consents: ConsentDoc[] = keys.map((k, i) => ({
    _id: consentId(owner(i + 1), 'api_key', k._id),
    person_id: owner(i + 1),
    credential_kind: 'api_key',
    credential_id: k._id,
    created_at: new Date(),
  }));
  // Failed sign-ins of many accounts within the lockout window (SignInEventStore.record).
  const signIns: SignInEventDoc[] = Array.from({ length: sizes.signInEvents }, (_, i) => ({
    _id: uuidv7(),
    account: createHash('sha256')
      .update(`someone-${i % 600}@example.test`)
      .digest('hex'),
    kind: 'failure',
    at: new Date(Date.now() - (i % 300) * 1000),
    ip: '203.0.113.7',
  }));
  // The change log of the last four minutes (SearchChangeStore.record): writes every 80 ms.
  const changes: SearchChangeDoc[] = Array.from({ length: sizes.searchChanges }, (_, i) => ({
    _id: uuidv7({ msecs: Date.now() - 240_000 + i * 80 }),
    artifact_id: seeded.largeDocs[i % seeded.largeDocs.length]!._id,
  }));
  await Promise.all([
    insertAll('server_credentials', credentials),
    insertAll('api_keys', keys),
    insertAll('consents', consents),
    insertAll('sign_in_events', signIns),
    insertAll('search_changes', changes),
  ]);

  await rest;
  // Other people's commits (as the API records them), the first of them with their previews' items
  // (what the commit workflow's preview writes), from this commit's own.
  const commit = (await commitsCollection(db).findOne({ _id: seeded.commit }))!;
  const items = await commitItems(db).find({ commit_id: seeded.commit }).toArray();
  assert.ok(items.length > 0);
  const commits: CommitDoc[] = [];
  const filler: CommitItemDoc[] = [];
  for (let c = 0; c < sizes.commits; c++) {
    const w = others[c % others.length]!;
    const commitId = randomUUID();
    commits.push({
      ...commit,
      _id: commitId,
      workflow_id: `commit-${w._id}-${commitId}`,
      workspace_id: w._id,
      collection_id: randomUUID(),
      requested_by: w.owner_id,
    });
    if (c < sizes.commitsWithItems)
      for (const item of items) filler.push({ ...item, _id: `${commitId}:${item.generation}:${item.position}`, commit_id: commitId });
  }
  await insertAll('commits', commits);
  await insertAll('commit_items', filler);

  // The embedding backlog as a burst of writes leaves it (EmbeddingBacklog.add), of artifacts since
  // deleted, so that an indexing run that takes them only removes them.
  const backlog: EmbeddingBacklogDoc[] = Array.from({ length: sizes.backlog }, (_, i) => {
    const artifact = uuidv7();
    return { _id: revisionId(artifact, 1), artifact_id: artifact, revision: 1, queued_at: new Date(Date.now() - i) };
  });
  await insertAll('embedding_backlog', backlog);
}

before(async () => {
  platform = await startPlatform();
  db = platform.services.db;
  admin = await platform.admin();
  adminId = (await platform.services.users.findByEmail(adminEmail))!._id;
  await seed();
  await analyze(platform.services.store, platform.config.MONGODB_DB);
});
after(() => platform?.close());

interface AnalyzedNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: AnalyzedNode[];
}

/**
 * Rows a hot query may read beyond those it returns. The seeded containers hold 1,200 to 1,500
 * documents each, so a query that walks a container (or everyone's documents of a kind) to find its
 * page is named, however its plan reaches them: a deep page that skips the rows before its cursor,
 * a sort of a whole container, an index scan filtered down to a few rows.
 */
const extraRowsAllowed = 500;

/**
 * What a statement read and returned when run (EXPLAIN ANALYZE, in a transaction that is rolled
 * back, with the values it was first run with): the rows each table scan produced or read and dropped
 * (its filter, a bitmap's recheck), over all its loops. Counts of rows, no timing.
 */
async function rowsRead(statement: Recorded): Promise<{ read: number; returned: number; tables: string[] }> {
  const client = await (platform.services.store as PgStoreClient).engine.pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, statement.values);
    const plan = (rows[0]!['QUERY PLAN'] as { Plan: AnalyzedNode }[])[0]!.Plan;
    let read = 0;
    const tables = new Set<string>();
    const walk = (node: AnalyzedNode) => {
      // A bitmap index scan's rows are read again by its heap scan, counted there.
      if (node['Node Type'].endsWith('Scan') && node['Node Type'] !== 'Bitmap Index Scan') {
        const perLoop = (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
        const n = perLoop * (node['Actual Loops'] ?? 1);
        read += n;
        if (n > extraRowsAllowed && node['Relation Name']) tables.add(node['Relation Name']);
      }
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(plan);
    return { read, returned: plan['Actual Rows'] ?? 0, tables: [...tables] };
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}

/**
 * Records the statements `work` makes the platform send (its background loops' too, while it runs),
 * and fails naming every one whose plan reads a whole table, or that reads far more rows than it
 * returns.
 */
async function assertBounded(what: string, work: () => Promise<void>): Promise<Recorded[]> {
  const recording = recordStatements(platform.services.store);
  let statements: Recorded[];
  try {
    await work();
  } finally {
    statements = recording.stop();
  }
  assert.ok(statements.length > 0, `${what}: no statement was recorded`);
  const whole = await wholeTableReads(platform.services.store, platform.config.MONGODB_DB, statements);
  const found = whole.map((f) => `${f.relation} read whole (${f.rows} rows): ${f.text}`);
  for (const statement of statements) {
    const { read, returned, tables } = await rowsRead(statement);
    if (read > returned + extraRowsAllowed)
      found.push(`${tables.join(', ')}: ${read} rows read for ${returned} returned: ${statement.text.replace(/\s+/g, ' ')}`);
  }
  assert.deepEqual(found, [], `${what} is not bounded by the request:\n${found.map((f) => `- ${f}`).join('\n')}`);
  return statements;
}

async function ok(reply: Promise<{ status: number; text: string; body: unknown }>, status = 200) {
  const r = await reply;
  assert.equal(r.status, status, r.text);
  return r.body as { items?: unknown[]; next_cursor?: string | null } & Record<string, unknown>;
}

describe('hot queries on a store of a few thousand documents read no whole table', () => {
  it('the store is seeded', async () => {
    const counts = Object.fromEntries(
      await Promise.all(
        [
          'workspaces',
          'collections',
          'artifacts',
          'artifact_revisions',
          'events',
          'mcp_catalog',
          'artifact_versions',
          'commits',
          'commit_items',
          'server_credentials',
          'api_keys',
          'consents',
          'sign_in_events',
          'search_changes',
        ].map(async (c) => [c, await db.collection(c).countDocuments({})] as const),
      ),
    );
    for (const [c, n] of Object.entries(counts)) assert.ok(n >= 1000, `${c} holds ${n} documents`);
  });

  it('artifact list: the first page of the large workspace, of an empty one, and of every workspace', async () => {
    await assertBounded('GET /artifacts', async () => {
      const first = await ok(admin.get(`/artifacts?collection_id=${seeded.large}&limit=10`));
      assert.equal(first.items!.length, 10);
      assert.ok(first.next_cursor);
      assert.equal((await ok(admin.get(`/artifacts?collection_id=${seeded.empty}&limit=10`))).items!.length, 0);
      const across = await ok(admin.get('/artifacts?limit=10'));
      assert.equal(across.items!.length, 10);
      await ok(admin.get(`/artifacts?limit=10&cursor=${across.next_cursor}`));
      await ok(admin.get(`/artifacts?limit=10&content_type=text/markdown`));
    });
  });

  it('artifact list: a deep page of the large workspace, through its cursor', async () => {
    const deep = seeded.largeDocs[600]!;
    await assertBounded('GET /artifacts (deep page)', async () => {
      const page = await ok(
        admin.get(`/artifacts?collection_id=${seeded.large}&limit=50&cursor=${encodeCursor([deep.order_key, deep._id])}`),
      );
      assert.equal((page.items![0] as { id: string }).id, seeded.largeDocs[601]!._id);
      await ok(admin.get(`/artifacts?collection_id=${seeded.large}&limit=50&cursor=${page.next_cursor}`));
    });
  });

  it('artifact get, revisions, versions', async () => {
    await assertBounded('GET /artifacts/{id}, /revisions, /versions', async () => {
      await ok(admin.get(`/artifacts/${seeded.edited}`));
      const revisions = await ok(admin.get(`/artifacts/${seeded.edited}/revisions?limit=1`));
      assert.equal(revisions.items!.length, 1);
      await ok(admin.get(`/artifacts/${seeded.edited}/revisions?limit=1&cursor=${revisions.next_cursor}`));
      assert.equal((await ok(admin.get(`/artifacts/${seeded.collectionArtifact}/versions`))).items!.length, 1);
      await ok(admin.get(`/artifacts/${seeded.collectionArtifact}`));
    });
  });

  it('commit items', async () => {
    await assertBounded('GET /commits/{id}/items', async () => {
      const page = await ok(admin.get(`/commits/${seeded.commit}/items?limit=5`));
      assert.equal(page.items!.length, 5);
      await ok(admin.get(`/commits/${seeded.commit}/items?limit=5&cursor=${page.next_cursor}`));
      await ok(admin.get(`/commits/${seeded.commit}`));
    });
  });

  it('a commit preview of 100 drafts, the commit list, the workspace list', async () => {
    await assertBounded('POST /workspaces/{id}/commit-preview, GET /commits, GET /workspaces', async () => {
      const ids = seeded.largeDocs.slice(100, 200).map((d) => d._id);
      const preview = await ok(
        admin.post(`/workspaces/${seeded.large}/commit-preview`, { collection_id: seeded.collection, artifact_ids: ids }),
      );
      assert.deepEqual(preview.counts, { new: 100, modified: 0, unchanged: 0 });
      assert.ok((await ok(admin.get('/commits?limit=10'))).items!.length >= 1);
      assert.ok((await ok(admin.get('/workspaces?limit=10'))).items!.length >= 2);
    });
  });

  it('artifacts read by id, 500 at a time (an import batch indexed by the search poll, its key claims)', async () => {
    await assertBounded('ArtifactStore.getMany of 600 ids', async () => {
      const ids = [...seeded.largeDocs.slice(0, 600).map((d) => d._id), randomUUID()];
      const found = await new ArtifactStore(db).getMany(ids);
      assert.deepEqual(
        found.map((d) => d._id),
        ids.slice(0, 600),
      );
    });
  });

  it('workspace events', async () => {
    await assertBounded('GET /workspaces/{id}/events', async () => {
      const page = await ok(admin.get(`/workspaces/${seeded.large}/events?limit=20`));
      assert.equal(page.items!.length, 20);
      await ok(admin.get(`/workspaces/${seeded.large}/events?limit=20&cursor=${page.next_cursor}`));
    });
  });

  it('the search change-log poll and the embedding backlog', async () => {
    await assertBounded('search change log, embedding backlog', async () => {
      await platform.services.search.poll();
      // A replica that fell four minutes behind reads the log a page at a time.
      assert.equal((await new SearchChangeStore(db).page(uuidv7Floor(Date.now() - 250_000), 100)).length, 100);
      assert.ok((await new EmbeddingBacklog(db).take(32)).length > 0);
    });
  });

  it('GET /mcp/servers', async () => {
    await assertBounded('GET /mcp/servers', async () => {
      const body = await ok(admin.get('/mcp/servers'));
      assert.equal((body.servers as unknown[]).length, 3); // the built-in one and the administrator's two
      await ok(admin.get(`/mcp/workspaces/${seeded.large}/servers`));
    });
  });

  it('server credentials, API keys, consents; deleting a key forgets its consents', async () => {
    await assertBounded('GET /server-credentials, /api-keys, /consents, DELETE /api-keys/{id}', async () => {
      assert.equal((await ok(admin.get('/server-credentials'))).items!.length, 2);
      const keys = await ok(admin.get('/api-keys'));
      assert.equal(keys.items!.length, 2);
      assert.equal((await ok(admin.get('/consents'))).items!.length, 2);
      const spare = (keys.items as { id: string }[]).find((k) => k.id !== seeded.consentedKey)!;
      await ok(admin.delete(`/api-keys/${spare.id}`), 204);
    });
  });

  it('artifact create and edit, of a type a server may define (its servers are looked up)', async () => {
    await assertBounded('POST /artifacts, PATCH /artifacts/{id}', async () => {
      const created = await ok(
        admin.post('/artifacts', {
          title: 'Plan',
          content_type: 'application/vnd.acme.plan+json',
          content: '{}',
          collection_id: seeded.large,
        }),
        201,
      );
      await ok(admin.patch(`/artifacts/${created.id}`, { title: 'Plan, revised' }));
    });
  });

  it('password sign-in', async () => {
    await assertBounded('POST /auth/login', async () => {
      await ok(platform.api.post('/auth/login', { email: adminEmail, password: adminPassword }));
      await ok(platform.api.post('/auth/login', { email: adminEmail, password: 'not the password' }), 401);
    });
  });
});
