// Plan test of the background work (issue #31, item 4): the search change-log poll, the outbox
// sweeper, the workspace event workflow's activities (record, dispatch to subscriptions and
// automations), subscription delivery reads, the live event stream's tail, the indexing backlog's
// embedding batches and the sign-in events' expiry run over a store holding a few thousand rows in
// each of their collections. Every statement they send is EXPLAINed against that data: none may read
// a whole table, so no tick costs more as the store grows. No timing: the plan is the assertion.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import { generateNKeysBetween } from 'fractional-indexing';
import { v7 as uuidv7 } from 'uuid';
import { createEventActivities } from '../../src/activities/events.js';
import { createEventDispatchActivities } from '../../src/activities/event-dispatch.js';
import { createIndexingActivities } from '../../src/activities/indexing.js';
import { createAutomationTrigger } from '../../src/automations/trigger.js';
import { createSubscriptionNotifier } from '../../src/events/subscriptions/notify.js';
import { beforeAllEvents, EventTail, storeEventSource } from '../../src/events/tail.js';
import type { RecordedEvent, WorkspaceEvent } from '../../src/events/types.js';
import type { Principal } from '../../src/identity/principal.js';
import { EventWorkflows } from '../../src/workflow-clients/events.js';
import { SubscriptionWorkflows } from '../../src/workflow-clients/subscriptions.js';
import { ArtifactStore, type ArtifactDoc, type Provenance } from '../../src/store/artifacts.js';
import type { ContainerDoc } from '../../src/store/containers.js';
import { EmbeddingBacklog } from '../../src/store/embedding-backlog.js';
import { EventStore, type EventDoc } from '../../src/store/events.js';
import { claimWithOutboxEvent, outbox, revisionsCollection, revisionState, type RevisionDoc } from '../../src/store/revisions.js';
import { SearchChangeStore, type SearchChangeDoc } from '../../src/store/search-changes.js';
import { SignInEventStore, type SignInEventDoc } from '../../src/store/sign-in-events.js';
import { SubscriptionStore, type DeliveryDoc, type SubscriptionDoc } from '../../src/store/subscriptions.js';
import { analyze, recordStatements, wholeTableReads, type Recorded } from '../helpers/query-plans.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import type { EmbedBatchOutcome } from '../../src/workflows/contracts/index-backlog.js';

/** Rows in each background collection: enough that PostgreSQL prefers an index wherever one serves. */
const rows = 3000;
const api: Provenance['source'] = { kind: 'api', request_id: 'plans' };

let platform: TestPlatform;
let ws: ContainerDoc;
let subscription: SubscriptionDoc;
const schema = () => platform.config.MONGODB_DB;

async function inBatches<T>(items: T[], insert: (slice: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += 500) await insert(items.slice(i, i + 500));
}

/**
 * A workspace of `rows` drafts with their claims (all relayed but the last 100, which wait) and
 * recorded events; the change log's last ten minutes; a backlog of `rows` revisions; a subscription
 * with 1,500 deliveries; sign-in events. The first draft is written by ArtifactStore.create, the
 * others are copies of it as that write would store them (their own id, order key, claim and event).
 */
async function seed(): Promise<void> {
  const { db } = platform.services;
  // The indexes a worker declares at its start (temporal-worker.ts); the API's are made by bootstrap.
  await Promise.all([outbox.ensureIndex(db), new EventStore(db).ensureIndexes()]);
  const admin = await platform.admin();
  const wsId = (await admin.post('/workspaces', { name: 'background plans' })).body.id as string;
  ws = (await db.collection<ContainerDoc>('workspaces').findOne({ _id: wsId }))!;
  const store = new ArtifactStore(db);
  const first = await store.create({ subject: 'alice' } as unknown as Principal, ws, {
    title: 'first',
    content_type: 'text/plain',
    content: 'the first draft',
    context: {},
    source: api,
  });
  const keys = generateNKeysBetween(first.order_key, null, rows - 1);
  const start = Date.now() - 30 * 60_000;
  const drafts: ArtifactDoc[] = keys.map((order_key, i) => ({
    ...first,
    _id: uuidv7({ msecs: start + i * 100 }),
    title: `draft ${i}`,
    content: `draft ${i} of the background plan test`,
    order_key,
  }));
  await inBatches(drafts, (slice) => db.collection<ArtifactDoc>('artifacts').insertMany(slice));
  const claims: RevisionDoc[] = drafts.map((d, i) => {
    const claim = claimWithOutboxEvent(d, 1, revisionState(d), { kind: 'artifact_created', actor: 'alice', source: api });
    const claimed_at = new Date(start + i * 100);
    const waiting = i >= drafts.length - 100;
    const { event_waiting: _w, ...relayed } = claim;
    return waiting ? { ...claim, claimed_at } : { ...relayed, claimed_at, event_relayed_at: claimed_at };
  });
  await inBatches(claims, (slice) => revisionsCollection(db).insertMany(slice));
  const events: EventDoc[] = claims.map(({ event }, i) => {
    const { id, ...rest } = event!;
    return { _id: id, ...rest, recorded_at: new Date(start + i * 100), seq: i + 1 };
  });
  await inBatches(events, (slice) => db.collection<EventDoc>('events').insertMany(slice));
  // The change log keeps ten minutes (SearchService): `rows` entries over the last nine.
  const now = Date.now();
  const changes = drafts.map((d, i) => ({ _id: uuidv7({ msecs: now - 9 * 60_000 + i * 150 }), artifact_id: d._id }));
  await inBatches(changes, (slice) => db.collection<SearchChangeDoc>('search_changes').insertMany(slice));
  const backlog = new EmbeddingBacklog(db);
  for (let i = 0; i < drafts.length; i += 500) {
    await backlog.add(
      drafts.slice(i, i + 500).map((d) => ({ artifactId: d._id, revision: 1 })),
      new Date(start + i * 100),
    );
  }
  subscription = {
    _id: uuidv7(),
    workspace_id: ws._id,
    server_id: uuidv7(),
    owner_id: 'alice',
    created_by: { kind: 'user', id: 'alice' },
    url: 'https://receiver.example.test/hook',
    kinds: null,
    content_types: null,
    secret_id: uuidv7(),
    state: 'active',
    cursor: 0,
    failures: 0,
    paused_at: null,
    pause_reason: null,
    created_at: new Date(start),
    updated_at: new Date(start),
  };
  await db.collection<SubscriptionDoc>('subscriptions').insertOne(subscription);
  const deliveries: DeliveryDoc[] = events.slice(0, 1500).map((e) => ({
    _id: `${subscription._id}:${e._id}`,
    subscription_id: subscription._id,
    event_id: e._id,
    seq: e.seq!,
    attempts: 1,
    outcome: 'delivered',
    status_code: 204,
    error: null,
    at: e.recorded_at,
  }));
  await inBatches(deliveries, (slice) => db.collection<DeliveryDoc>('subscription_deliveries').insertMany(slice));
  const signIns: SignInEventDoc[] = Array.from({ length: rows }, (_, i) => ({
    _id: uuidv7({ msecs: now - i * 1000 }),
    account: `account-${i % 300}`,
    kind: 'failure',
    at: new Date(now - i * 1000),
    ip: '203.0.113.9',
  }));
  await inBatches(signIns, (slice) => db.collection<SignInEventDoc>('sign_in_events').insertMany(slice));
  await analyze(platform.services.store, schema());
}

before(async () => {
  // The platform's own poll is stopped below; the test runs its ticks. Hashing embeddings: quick.
  platform = await startPlatform({ SEARCH_SYNC_INTERVAL_MS: '60000', EMBEDDINGS_PROVIDER: 'hashing' }, { worker: false });
  await platform.services.search.stop();
  await seed();
});
after(() => platform?.close());

/** Statements `work` sends, and how many it sent. */
async function recording(work: () => Promise<unknown>): Promise<{ statements: Recorded[]; sent: number }> {
  const engine = (platform.services.store as unknown as { engine: { onStatement?: (t: string, v: unknown[]) => void } }).engine;
  const recorder = recordStatements(platform.services.store);
  let sent = 0;
  const inner = engine.onStatement;
  engine.onStatement = (text, values) => {
    sent++;
    inner?.(text, values);
  };
  try {
    await work();
  } finally {
    engine.onStatement = inner;
  }
  return { statements: recorder.stop(), sent };
}

const noWholeTableReads = async (statements: Recorded[]) =>
  assert.deepEqual(await wholeTableReads(platform.services.store, schema(), statements), [], 'a background statement reads a whole table');

describe('background work reads what it works on, never a whole collection', () => {
  it('the search change-log poll: new changes, the overlap, the prune', async () => {
    const { services } = platform;
    const changes = new SearchChangeStore(services.db);
    const [a, b] = await services.db.collection<ArtifactDoc>('artifacts').find({ collection_id: ws._id }).limit(2).toArray();
    const { statements } = await recording(async () => {
      await changes.record(a!._id, b!._id, uuidv7()); // two drafts written elsewhere, one deleted
      // Sixty ticks: the poll prunes the log on every sixtieth.
      for (let tick = 0; tick < 60; tick++) await services.search.poll();
    });
    assert.ok(
      statements.some((s) => /DELETE FROM .*search_changes/.test(s.text)),
      'the prune ran',
    );
    await noWholeTableReads(statements);
  });

  it('the outbox sweeper relays what waits, then finds nothing due', async () => {
    const workflows = new EventWorkflows(platform.services.temporal, platform.config.TEMPORAL_TASK_QUEUE, 500, {
      db: platform.services.db,
      inline: false,
      relay: { graceMs: 0, sweepLimit: 40, signalBatch: 100 },
    });
    const waiting = await revisionsCollection(platform.services.db).countDocuments({ event_waiting: true });
    assert.ok(waiting >= 100);
    const { statements } = await recording(async () => {
      let relayed = 0;
      for (let n = -1; n !== 0; relayed += n) n = await workflows.relay!.sweep();
      assert.equal(relayed, waiting);
    });
    await noWholeTableReads(statements);
  });

  it("the workspace event workflow's activities: record, last seq, dispatch to subscriptions and automations", async () => {
    const { services, config } = platform;
    const activities = createEventActivities(services.events);
    const dispatch = createEventDispatchActivities({
      notifySubscriptions: createSubscriptionNotifier(services.db, (sub, seq) =>
        new SubscriptionWorkflows(() => services.temporal, config).poke(sub, seq),
      ),
      runAutomations: createAutomationTrigger(config, services.db, { client: () => services.temporal, log: () => undefined }),
    });
    const [draft] = await services.db.collection<ArtifactDoc>('artifacts').find({ collection_id: ws._id }).limit(1).toArray();
    const { statements } = await recording(async () => {
      const next = (await activities.lastWorkspaceSeq(ws._id)) + 1;
      const batch: RecordedEvent[] = Array.from({ length: 3 }, (_, i) => ({
        ...({
          id: uuidv7(),
          kind: 'artifact_updated',
          workspace_id: ws._id,
          artifact_id: draft!._id,
          actor: 'alice',
          occurred_at: new Date().toISOString(),
          changed: ['title'],
          content_type: 'text/plain',
          revision: 2 + i,
          depth: 0,
        } satisfies WorkspaceEvent),
        seq: next + i,
      }));
      const recorded = await activities.recordWorkspaceEvents(batch);
      assert.equal(recorded.length, 3);
      await new MockActivityEnvironment().run(dispatch.dispatchWorkspaceEvents, ws._id, batch);
    });
    await noWholeTableReads(statements);
  });

  it("a subscription's delivery reads and prune", async () => {
    const { services } = platform;
    const subscriptions = new SubscriptionStore(services.db);
    const { statements } = await recording(async () => {
      await subscriptions.activeIn(ws._id);
      await subscriptions.pruneDeliveries(subscription._id);
      // A subscription far behind (its cursor at 0) reads a page from there; one near the head, the rest.
      assert.equal((await services.events.after(ws._id, 0, 100)).length, 100);
      await services.events.after(ws._id, rows - 5, 100);
    });
    await noWholeTableReads(statements);
  });

  it("the live event stream's tail", async () => {
    const { services } = platform;
    const { statements } = await recording(async () => {
      const tail = new EventTail(storeEventSource(services.events), ws._id, beforeAllEvents);
      assert.equal((await tail.next()).overflowed, true, 'a reader 3,000 events behind is told to reload');
      await tail.next();
      await EventTail.newestId(storeEventSource(services.events), ws._id);
    });
    await noWholeTableReads(statements);
  });

  it('the indexing backlog: batches taken oldest first, embedded, removed; then an idle look', async () => {
    const { services } = platform;
    const backlog = new EmbeddingBacklog(services.db);
    const activities = createIndexingActivities({
      artifacts: new ArtifactStore(services.db),
      changes: new SearchChangeStore(services.db),
      embedder: services.search.embedder,
      backlog,
    });
    const env = new MockActivityEnvironment();
    const { statements } = await recording(async () => {
      for (let i = 0; i < 2; i++) {
        const outcome: EmbedBatchOutcome = await env.run(activities.embedQueued, { limit: 32 });
        assert.equal(outcome.taken, 32);
      }
      await activities.queueEmbeddings([{ artifactId: uuidv7(), revision: 1 }]);
    });
    await noWholeTableReads(statements);
  });

  it('the sign-in events expiry', async () => {
    const events = new SignInEventStore(platform.services.db);
    const { statements } = await recording(() => events.sweep(new Date(Date.now() - 40 * 60_000)));
    await noWholeTableReads(statements);
  });

  it('an idle tick is one statement: the poll, the sweeper, the indexing run', async () => {
    const { services } = platform;
    const workflows = new EventWorkflows(services.temporal, platform.config.TEMPORAL_TASK_QUEUE, 500, { db: services.db, inline: false });
    while ((await services.search.poll()) > 0); // what the other tests wrote (embeddings, records) applied
    assert.equal((await recording(() => services.search.poll())).sent, 1);
    assert.equal((await recording(() => workflows.relay!.sweep())).sent, 1);
    await services.db.collection('embedding_backlog').deleteMany({});
    const activities = createIndexingActivities({
      artifacts: new ArtifactStore(services.db),
      changes: new SearchChangeStore(services.db),
      embedder: services.search.embedder,
      backlog: new EmbeddingBacklog(services.db),
    });
    assert.equal((await recording(() => new MockActivityEnvironment().run(activities.embedQueued, { limit: 32 }))).sent, 1);
  });

  it('the check itself: a sweeper that looked for due claims by time alone is named', async () => {
    const { statements } = await recording(() =>
      revisionsCollection(platform.services.db)
        .find({ claimed_at: { $lte: new Date() } })
        .limit(500)
        .toArray(),
    );
    const found = await wholeTableReads(platform.services.store, schema(), statements);
    assert.ok(found.length > 0, 'the scan is named');
    assert.deepEqual(new Set(found.map((f) => f.relation)), new Set(['artifact_revisions']), JSON.stringify(found));
  });
});
