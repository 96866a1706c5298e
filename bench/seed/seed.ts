// Seeds a store as real use leaves it (issue #31): people, their workspaces, drafts with their revision
// claims and recorded events, every draft embedded. Written straight to the store in batches (REST
// took 39 minutes for 20,000 artifacts), with the documents built by the platform's own functions
// (appendKey, claimWithOutboxEvent, revisionState, atRevision, the stores' create paths), so that they are
// what the platform writes: what each write path would store, listed below, and nothing else.
//
//   create (ArtifactStore.create):     the artifact at revision 1, its claim on revision 1 with its
//                                       artifact_created event (the outbox row)
//   edit / archive (ArtifactStore.revise, then settle): a claim on the next revision with its
//                                       artifact_updated event, the artifact brought to that state
//   the event relay (outbox.markRelayed): each claim's event handed on (event_relayed_at, no event_waiting)
//   the workspace event workflow (EventStore.record): each event recorded under the workspace's next seq
//   indexing (ArtifactStore.storeEmbedding): the latest revision's vector; the backlog left empty
//
// The search change log is left empty: it keeps ten minutes, and a store at rest has none. Workspaces
// are made by ContainerStore.create and people by UserStore.create, one call each (a thousand are quick).
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import { hashPassword } from '../../src/identity/passwords.js';
import { userPrincipal } from '../../src/identity/principal.js';
import { contentHash, embeddingText, vectorForStorage } from '../../src/search/documents.js';
import type { Embedder } from '../../src/search/embedding.js';
import { appendKey, type ArtifactDoc, type Provenance } from '../../src/store/artifacts.js';
import { ContainerStore, type ContainerDoc } from '../../src/store/containers.js';
import type { EventDoc } from '../../src/store/events.js';
import {
  atRevision,
  claimWithOutboxEvent,
  revisionsCollection,
  revisionState,
  type RevisionDoc,
  type WriteCause,
} from '../../src/store/revisions.js';
import { UserStore } from '../../src/store/users.js';
import { body, query, rng, title, word } from './text.js';
import { pooledVectors } from './vectors.js';

export interface SeedOptions {
  /** Artifacts in all (default 100,000). */
  artifacts: number;
  /** Workspaces holding them (default one per 100 artifacts). */
  workspaces?: number;
  /** Artifacts of the one large workspace (default a fifth of all: 20,000 of 100,000). */
  large?: number;
  /** People owning the workspaces, the administrator among them (default 50). */
  people?: number;
  /** The platform's embedder: the vectors are its (see vectors.ts). */
  embedder: Embedder;
  seed?: number;
  log?: (line: string) => void;
}

export interface SeedResult {
  /** The workspace with `large` artifacts, the administrator's. */
  largeWorkspaceId: string;
  /** Artifacts the administrator may read, spread over their workspaces (for gets, edits, invocations). */
  sampleArtifactIds: string[];
  /** Queries drawn from the seeded vocabulary. */
  queries: string[];
  counts: { people: number; workspaces: number; artifacts: number; revisions: number; events: number; archived: number };
  seconds: number;
  vectors: string;
}

/** At most this many insertMany calls in flight, each of `batch` documents. */
const inFlight = 3;
const batch = 500;

/** Sizes of the other workspaces: a long tail (a few hold hundreds, most a few dozen), summing to `total`. */
function tailSizes(total: number, count: number): number[] {
  if (count <= 0) return [];
  const weights = Array.from({ length: count }, (_, i) => 1 / Math.pow(i + 10, 0.8));
  const sum = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((w) => Math.floor((w / sum) * total));
  for (let i = 0, left = total - sizes.reduce((a, b) => a + b, 0); left > 0; i = (i + 1) % count, left--) sizes[i]!++;
  return sizes;
}

/**
 * The order of the writes: workspace indexes, each as often as its size, in sessions of 1–50 writes to
 * one workspace, each session's workspace drawn in proportion to the writes it still has to receive.
 */
function* sessions(sizes: number[], random: () => number): Generator<number> {
  const left = [...sizes];
  let total = left.reduce((a, b) => a + b, 0);
  while (total > 0) {
    let x = random() * total;
    let w = 0;
    while (x >= left[w]! && w < left.length - 1) x -= left[w++]!;
    const burst = Math.min(left[w]!, 1 + Math.floor(random() * 50));
    left[w]! -= burst;
    total -= burst;
    for (let k = 0; k < burst; k++) yield w;
  }
}

/** Bulk writer: documents gathered per collection and inserted `batch` at a time, `inFlight` at once. */
class Writer {
  private readonly buffers = new Map<string, object[]>();
  private readonly running = new Set<Promise<void>>();
  written = 0;

  constructor(private readonly db: Db) {}

  async add(collection: string, doc: object): Promise<void> {
    let buf = this.buffers.get(collection);
    if (!buf) this.buffers.set(collection, (buf = []));
    buf.push(doc);
    if (buf.length >= batch) await this.flush(collection);
  }

  private async flush(collection: string): Promise<void> {
    const docs = this.buffers.get(collection);
    if (!docs?.length) return;
    this.buffers.set(collection, []);
    while (this.running.size >= inFlight) await Promise.race(this.running);
    const p = this.db
      .collection(collection)
      .insertMany(docs as never[], { ordered: false })
      .then(() => {
        this.written += docs.length;
      })
      .finally(() => this.running.delete(p));
    this.running.add(p);
  }

  async done(): Promise<void> {
    for (const c of this.buffers.keys()) await this.flush(c);
    await Promise.all(this.running);
  }
}

/**
 * Seeds `db` (indexes made, the administrator signed up). The administrator owns the large workspace
 * and a share of the others; the rest belong to other people, as on a shared platform.
 */
export async function seedStore(db: Db, adminId: string, options: SeedOptions): Promise<SeedResult> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const random = rng(options.seed ?? 31);
  const total = options.artifacts;
  const workspaceCount = Math.max(2, options.workspaces ?? Math.round(total / 100));
  const large = Math.min(total, options.large ?? Math.round(total / 5));
  const peopleCount = Math.max(1, options.people ?? 50);

  // People: one password hash for all (scrypt each would take minutes); they never sign in.
  const users = new UserStore(db);
  const hash = await hashPassword(randomUUID());
  const people = [adminId];
  for (let i = 1; i < peopleCount; i++) people.push((await users.create(`seeded-${i}@example.test`, hash, false))._id);

  // Workspaces: the large one first, then the others, round-robin over the people.
  const containers = new ContainerStore(db);
  const sizes = [large, ...tailSizes(total - large, workspaceCount - 1)];
  const workspaces: ContainerDoc[] = [];
  for (let i = 0; i < sizes.length; i += 16) {
    const slice = sizes.slice(i, i + 16);
    workspaces.push(
      ...(await Promise.all(
        slice.map((_, j) => {
          const n = i + j;
          const owner = n === 0 ? adminId : people[n % people.length]!;
          return containers.create('workspace', userPrincipal(owner, false), {
            name: n === 0 ? 'Large workspace' : `${word(random)} ${word(random)} ${n}`,
            description: n % 3 === 0 ? `Notes on ${word(random)} and ${word(random)}` : undefined,
          });
        }),
      )),
    );
  }
  log(`seed: ${people.length} people, ${workspaces.length} workspaces (${large} artifacts in the large one)`);

  // Vectors of the platform's embedder (see vectors.ts): a pool of 256 real texts.
  const poolRandom = rng((options.seed ?? 31) + 1);
  const vectors = await pooledVectors(
    options.embedder,
    Array.from({ length: 256 }, (_, i) => body(poolRandom, 'text/plain', `pool ${i}`)),
    rng((options.seed ?? 31) + 2),
  );
  log(`seed: vector pool embedded (${((performance.now() - started) / 1000).toFixed(1)} s so far)`);

  const writer = new Writer(db);
  const counts = { people: people.length, workspaces: workspaces.length, artifacts: 0, revisions: 0, events: 0, archived: 0 };
  const sample: string[] = [];
  const sampleEvery = Math.max(1, Math.floor(total / 5000));
  let lastReport = performance.now();
  const revisions = revisionsCollection(db).collectionName;

  // Writes arrive as real use makes them: in sessions of 1–50 to one workspace, the workspaces
  // interleaved (each drawn in proportion to what it has yet to receive), not one workspace after another.
  const state = workspaces.map(() => ({ lastKey: null as string | null, seq: 0, i: 0 }));
  for (const w of sessions(sizes, random)) {
    const ws = workspaces[w]!;
    const owner = ws.owner_id;
    const st = state[w]!;
    const i = st.i++;
    const n = counts.artifacts + 1;
    const r = random();
    const contentType = r < 0.7 ? 'text/markdown' : r < 0.95 ? 'text/plain' : 'application/json';
    const heading = title(random, n);
    const source = (): Provenance['source'] => ({ kind: random() < 0.85 ? 'api' : 'mcp', request_id: randomUUID() });
    const created = source();
    const now = new Date();
    // ArtifactStore.create's document, field for field. Keys chained on the previous one: appendKey
    // gives a key after it (a tight loop makes many in one millisecond; the clock's key alone could repeat).
    let doc: ArtifactDoc = {
      _id: uuidv7(),
      title: heading,
      content_type: contentType,
      content: body(random, contentType, heading),
      context: random() < 0.2 ? { description: `${word(random)} ${word(random)} ${word(random)}` } : {},
      collection_id: ws._id,
      container_kind: 'workspace',
      order_key: (st.lastKey = appendKey(st.lastKey)),
      revision: 1,
      provenance: { created_by: owner, created_at: now, updated_by: owner, updated_at: now, source: created },
    };
    const claims: RevisionDoc[] = [
      claimWithOutboxEvent(doc, 1, revisionState(doc), { kind: 'artifact_created', actor: owner, source: created }),
    ];
    // Later writes: about one draft in ten edited once, one in fifty twice, one in a hundred archived
    // (the store after half an hour of use: 5,215 revisions for 4,820 artifacts).
    const e1 = random();
    const edits = e1 < 0.02 ? 2 : e1 < 0.1 ? 1 : 0;
    const archive = random() < 0.01;
    for (let e = 0; e < edits + (archive ? 1 : 0); e++) {
      const by = source();
      const edited = { ...doc.provenance, updated_by: owner, updated_at: new Date(), source: by };
      let patch: Record<string, unknown>;
      let cause: WriteCause;
      if (e < edits) {
        // An edit through REST: new content (its secrets' owner recorded), or a new title.
        patch = random() < 0.7 ? { content: body(random, contentType, heading), secrets_owner: owner } : { title: `${heading} (revised)` };
        cause = { kind: 'artifact_updated', actor: owner, changed: Object.keys(patch).filter((k) => k !== 'secrets_owner'), source: by };
      } else {
        patch = { archived_at: new Date() };
        cause = { kind: 'artifact_updated', actor: owner, changed: ['state'], source: by };
        counts.archived++;
      }
      const state = { ...revisionState(doc), ...patch, provenance: edited };
      const revision = doc.revision + 1;
      claims.push(claimWithOutboxEvent(doc, revision, state, cause));
      doc = atRevision(doc, revision, state);
    }
    // The embedding of the latest revision (ArtifactStore.storeEmbedding).
    doc.search = {
      embedder: vectors.embedderId,
      content_hash: contentHash(embeddingText(doc)),
      vector: vectorForStorage(vectors.next()),
      revision: doc.revision,
      embedded_at: new Date(),
    };
    await writer.add('artifacts', doc);
    for (const claim of claims) {
      // Relayed (outbox.markRelayed), then recorded under the workspace's next seq (EventStore.record).
      const { event_waiting: _waiting, ...relayed } = claim;
      await writer.add(revisions, { ...relayed, event_relayed_at: new Date() });
      const { id, ...event } = claim.event!;
      const recorded: EventDoc = { _id: id, ...event, seq: ++st.seq, recorded_at: new Date() };
      await writer.add('events', recorded);
    }
    counts.artifacts++;
    counts.revisions += claims.length;
    counts.events += claims.length;
    if (
      owner === adminId &&
      contentType !== 'application/json' &&
      (w === 0 ? i % (sampleEvery * 4) === 0 : i % sampleEvery === 0) &&
      !doc.archived_at
    )
      sample.push(doc._id);
    if (performance.now() - lastReport > 15_000) {
      lastReport = performance.now();
      log(`seed: ${counts.artifacts} of ${total} artifacts (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
  }
  await writer.done();
  const qr = rng((options.seed ?? 31) + 3);
  const seconds = (performance.now() - started) / 1000;
  log(
    `seed: ${counts.artifacts} artifacts, ${counts.revisions} revisions, ${counts.events} events in ${workspaces.length} workspaces, ${seconds.toFixed(0)} s (${(counts.artifacts / seconds).toFixed(0)} artifacts/s)`,
  );
  return {
    largeWorkspaceId: workspaces[0]!._id,
    sampleArtifactIds: sample,
    queries: Array.from({ length: 40 }, () => query(qr)),
    counts,
    seconds,
    vectors: vectors.how,
  };
}
