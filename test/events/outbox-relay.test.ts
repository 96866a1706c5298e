// The outbox of issue #21 and its relay, against the real store: every draft write's claim carries its
// event; the relay hands waiting events on (fast path and sweeper) and marks them; a refused hand-over
// leaves them waiting. The deliverer here is a recorder, not Temporal (the kill test covers that),
// except for the API's background fast path, which signals the real Temporal.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Client } from '@temporalio/client';
import { OutboxRelay, startSweeper } from '../../src/events/outbox-relay.js';
import { stableEventId } from '../../src/store/revisions.js';
import type { WorkspaceEvent } from '../../src/events/types.js';
import type { Principal } from '../../src/identity/principal.js';
import { ArtifactStore, type Provenance } from '../../src/store/artifacts.js';
import type { ContainerDoc } from '../../src/store/containers.js';
import { revisionsCollection, type RevisionDoc } from '../../src/store/revisions.js';
import { EventWorkflows } from '../../src/workflow-clients/events.js';
import { eventsWorkflowId } from '../../src/workflows/contracts/ids.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
before(async () => {
  platform = await startPlatform({}, { worker: false });
});
after(() => platform.close());

const api: Provenance['source'] = { kind: 'api', request_id: 'req-1' };
const principal = (subject: string) => ({ subject }) as unknown as Principal;

/** A plain-text draft by alice in `ws`, through the store (its claim carries the create's event). */
const draftIn = (store: ArtifactStore, ws: ContainerDoc) =>
  store.create(principal('alice'), ws, { title: 't', content_type: 'text/plain', content: 'a', context: {}, source: api });

async function workspace(): Promise<ContainerDoc> {
  const admin = await platform.admin();
  const id = (await admin.post('/workspaces', { name: 'outbox' })).body.id as string;
  return (await platform.services.db.collection<ContainerDoc>('workspaces').findOne({ _id: id }))!;
}

/** Marks every waiting event handed on: each relay test sees only the claims it makes. */
const drain = () => revisionsCollection(platform.services.db).updateMany({}, { $unset: { event_waiting: '' } });

const claimsOf = (id: string) => revisionsCollection(platform.services.db).find({ artifact_id: id }).sort({ _id: 1 }).toArray();

class Recorder {
  readonly calls: { workspaceId: string; events: WorkspaceEvent[] }[] = [];
  refuse: string | null = null;
  deliver = async (workspaceId: string, events: WorkspaceEvent[]) => {
    if (this.refuse === workspaceId) throw new Error('refused');
    this.calls.push({ workspaceId, events });
  };
  ids = () => this.calls.flatMap((c) => c.events.map((e) => e.id));
}

describe('the outbox: each draft write inserts its event with its revision claim', () => {
  it('create, update, archive, delete: kind, actor, changed, content type, revision, source, depth and a stable id', async () => {
    const store = new ArtifactStore(platform.services.db);
    const ws = await workspace();
    const doc = await draftIn(store, ws);
    await store.update(principal('bob'), doc._id, { title: 'u', secrets_owner: 'bob' }, api);
    await store.setArchived(principal('bob'), doc._id, true, api);
    const automated = { ...api, kind: 'agent', automation: { id: 'auto-1', depth: 2, event_id: 'e' } } as Provenance['source'];
    await store.setArchived(principal('carol'), doc._id, false, automated);
    assert.equal(await store.delete(doc._id, undefined, { actor: 'dave', source: api }), true);

    const claims = await claimsOf(doc._id);
    assert.deepEqual(
      claims.map((c) => [c.event!.kind, c.event!.actor, c.event!.changed, c.event!.revision, c.event!.depth]),
      [
        ['artifact_created', 'alice', undefined, 1, 0],
        ['artifact_updated', 'bob', ['title'], 2, 0],
        ['artifact_updated', 'bob', ['state'], 3, 0],
        ['artifact_updated', 'carol', ['state'], 4, 2],
        ['artifact_deleted', 'dave', undefined, 5, 0],
      ],
    );
    for (const c of claims) {
      assert.equal(c.event!.id, stableEventId(c.claimed_at.getTime(), `${doc._id}:${c.revision}`));
      assert.equal(c.event!.workspace_id, ws._id);
      assert.equal(c.event!.artifact_id, doc._id);
      assert.equal(c.event!.content_type, 'text/plain');
      assert.equal(c.event!.occurred_at, c.claimed_at.toISOString());
      assert.ok(c.event_waiting && !c.event_relayed_at);
    }
    assert.equal(claims[0]!.event!.source!.request_id, 'req-1');
    assert.deepEqual(claims[3]!.event!.source!.automation, { id: 'auto-1', depth: 2, event_id: 'e' });
  });

  it('a create retried after a crash between its insert and its claim still records its event, once', async () => {
    const store = new ArtifactStore(platform.services.db);
    const ws = await workspace();
    const input = { id: 'retried-create-1', title: 't', content_type: 'text/plain', content: 'a', context: {}, source: api };
    const first = await store.create(principal('alice'), ws, input);
    // The crash: the document went in, its claim (and the event with it) did not.
    await revisionsCollection(platform.services.db).deleteMany({ artifact_id: first._id });
    assert.equal((await claimsOf(first._id)).length, 0);
    // The retry (the activity run again with the same id) finds the document and completes the write.
    const again = await store.create(principal('alice'), ws, input);
    assert.equal(again._id, first._id);
    const claims = await claimsOf(first._id);
    assert.equal(claims.length, 1);
    assert.equal(claims[0]!.event?.kind, 'artifact_created');
    assert.equal(claims[0]!.event_waiting, true, 'its event waits for the relay');
    // A third try changes nothing: the claim is there.
    await store.create(principal('alice'), ws, input);
    assert.equal((await claimsOf(first._id)).length, 1);
  });

  it('a collection artifact has no claim, so no event', async () => {
    const store = new ArtifactStore(platform.services.db);
    const admin = await platform.admin();
    const id = (await admin.post('/collections', { name: 'c' })).body.id as string;
    const col = (await platform.services.db.collection<ContainerDoc>('collections').findOne({ _id: id }))!;
    const doc = await store.create(principal('alice'), col, {
      title: 't',
      content_type: 'text/plain',
      content: 'a',
      context: {},
      source: api,
    });
    assert.equal((await claimsOf(doc._id)).length, 0);
  });
});

describe('the relay', () => {
  beforeEach(drain);

  it("hands on a write's waiting event, marks it, and hands nothing on twice", async () => {
    const store = new ArtifactStore(platform.services.db);
    const ws = await workspace();
    const doc = await draftIn(store, ws);
    await store.update(principal('alice'), doc._id, { content: 'b' }, api);
    const recorder = new Recorder();
    const relay = new OutboxRelay(platform.services.db, recorder.deliver, { graceMs: 60_000, sweepLimit: 10, signalBatch: 10 });
    assert.equal(await relay.relayClaim(doc._id, 2), 1, 'the write its caller made');
    assert.equal(await relay.relayClaim(doc._id, 2), 0, 'not twice');
    assert.equal(await relay.relayClaim(doc._id, 3), 0, 'no such claim');
    assert.equal(await relay.relayClaim(doc._id, 1), 1, 'the one before, still waiting');
    const claims = await claimsOf(doc._id);
    assert.deepEqual(recorder.ids(), [claims[1]!.event!.id, claims[0]!.event!.id]);
    assert.ok(claims.every((c) => c.event_relayed_at && c.event_waiting === undefined));
  });

  it('the sweeper takes only what waited past the grace, per workspace in event order, in batches', async () => {
    const store = new ArtifactStore(platform.services.db);
    const [a, b] = [await workspace(), await workspace()];
    const made: RevisionDoc[] = [];
    for (const ws of [a, b, a, a]) {
      const doc = await draftIn(store, ws);
      made.push(...(await claimsOf(doc._id)));
    }
    const recorder = new Recorder();
    const relay = new OutboxRelay(platform.services.db, recorder.deliver, { graceMs: 60_000, sweepLimit: 1000, signalBatch: 2 });
    assert.equal(await relay.sweep(), 0, 'not yet: the fast path has the grace to do it');
    const later = new Date(Date.now() + 120_000);
    assert.equal(await relay.sweep(later), 4);
    const forA = recorder.calls.filter((c) => c.workspaceId === a._id);
    assert.deepEqual(
      forA.map((c) => c.events.length),
      [2, 1],
      'batches of two',
    );
    assert.deepEqual(
      forA.flatMap((c) => c.events.map((e) => e.id)),
      made.filter((c) => c.event!.workspace_id === a._id).map((c) => c.event!.id),
    );
    assert.equal(await relay.sweep(later), 0, 'marked: nothing twice');
  });

  it('a refused hand-over leaves that workspace waiting, the others go on; the next sweep takes it', async () => {
    const store = new ArtifactStore(platform.services.db);
    const [a, b] = [await workspace(), await workspace()];
    for (const ws of [a, b]) await draftIn(store, ws);
    const recorder = new Recorder();
    recorder.refuse = a._id;
    const relay = new OutboxRelay(platform.services.db, recorder.deliver, { graceMs: 0, sweepLimit: 1000, signalBatch: 100 });
    const later = new Date(Date.now() + 1000);
    await assert.rejects(relay.sweep(later), /1 workspace\(s\) not relayed/);
    assert.deepEqual(
      recorder.calls.map((c) => c.workspaceId),
      [b._id],
    );
    recorder.refuse = null;
    assert.equal(await relay.sweep(later), 1);
    assert.deepEqual(
      recorder.calls.map((c) => c.workspaceId),
      [b._id, a._id],
    );
  });

  it('the sweeper leaves a workspace whose event run is backlogged for a later sweep; the fast path of a bulk writer does not ask', async () => {
    await drain();
    const store = new ArtifactStore(platform.services.db);
    const [a, b] = [await workspace(), await workspace()];
    for (const ws of [a, b]) await draftIn(store, ws);
    const recorder = new Recorder();
    const backlogged = new Set([a._id]);
    const relay = new OutboxRelay(platform.services.db, recorder.deliver, { graceMs: 0, sweepLimit: 1000, signalBatch: 100 }, async (ws) =>
      backlogged.has(ws),
    );
    const later = new Date(Date.now() + 1000);
    assert.equal(await relay.sweep(later), 1);
    assert.deepEqual(
      recorder.calls.map((c) => c.workspaceId),
      [b._id],
    );
    backlogged.clear();
    assert.equal(await relay.sweep(later), 1, 'caught up: swept now');
    assert.deepEqual(
      recorder.calls.map((c) => c.workspaceId),
      [b._id, a._id],
    );
    // relayInserted (an import's paced relay, which waited on the run itself) never asks.
    const draft = await draftIn(store, a);
    backlogged.add(a._id);
    assert.equal(await relay.relayInserted(await claimsOf(draft._id)), 1);
  });

  it('startSweeper runs sweeps until stopped, and logs a failed one', async () => {
    const store = new ArtifactStore(platform.services.db);
    const ws = await workspace();
    const doc = await draftIn(store, ws);
    const recorder = new Recorder();
    recorder.refuse = ws._id;
    const warnings: string[] = [];
    const relay = new OutboxRelay(platform.services.db, recorder.deliver, { graceMs: 0, sweepLimit: 1000, signalBatch: 100 });
    const sweeper = startSweeper(relay, 50, { warn: (_o, m) => void warnings.push(m), info: () => undefined });
    try {
      await waitFor(() => warnings.length > 0);
      recorder.refuse = null;
      await waitFor(() => recorder.calls.length > 0);
    } finally {
      await sweeper.stop();
    }
    const claims = await claimsOf(doc._id);
    assert.ok(recorder.ids().includes(claims[0]!.event!.id));
    assert.match(warnings[0]!, /event sweep failed/);
  });
});

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(check(), 'in time');
}

describe("the API's fast path, behind the write (EventWorkflows's background mode)", () => {
  beforeEach(drain);

  const eventWorkflowsWith = (client: Client, errors: unknown[]) =>
    new EventWorkflows(client, platform.services.config.TEMPORAL_TASK_QUEUE, 1000, {
      db: platform.services.db,
      inline: true,
      background: { onError: (err) => errors.push(err) },
    });

  it('answers before the signal, relays what queued meanwhile together, and loses nothing', async () => {
    const store = new ArtifactStore(platform.services.db);
    const ws = await workspace();
    const docs = [];
    for (let i = 0; i < 20; i++) docs.push(await draftIn(store, ws));
    const errors: unknown[] = [];
    const events = eventWorkflowsWith(platform.services.temporal, errors);
    await Promise.all(docs.map((doc) => events.publishWrite({ kind: 'artifact_created', doc, actor: 'alice' })));
    // Every write's publish has resolved; no signal can have been answered within the same tick.
    const waiting = await revisionsCollection(platform.services.db).countDocuments({
      artifact_id: { $in: docs.map((d) => d._id) },
      event_waiting: true,
    });
    assert.ok(waiting > 0, 'the writes did not wait for their relay');
    await events.flush();
    assert.deepEqual(errors, []);
    const left = await revisionsCollection(platform.services.db).countDocuments({
      artifact_id: { $in: docs.map((d) => d._id) },
      event_waiting: true,
    });
    assert.equal(left, 0, 'every event relayed and marked');
    const handle = platform.services.temporal.workflow.getHandle(eventsWorkflowId(ws._id));
    const history = await handle.fetchHistory();
    const signals = history.events!.filter((e) => e.workflowExecutionSignaledEventAttributes);
    assert.ok(
      signals.length >= 1 && signals.length < docs.length,
      `${signals.length} signals for ${docs.length} writes: queued writes go together`,
    );
    await handle.terminate('test done');
  });

  it('a relay that fails leaves the events in the outbox for the sweeper, and says so', async () => {
    const store = new ArtifactStore(platform.services.db);
    const ws = await workspace();
    const doc = await draftIn(store, ws);
    const errors: unknown[] = [];
    // A namespace Temporal does not have: it refuses the signal at once (NOT_FOUND, not retried).
    const refusing = new Client({ connection: platform.services.temporal.connection, namespace: 'no-such-namespace' });
    const events = eventWorkflowsWith(refusing, errors);
    await events.publishWrite({ kind: 'artifact_created', doc, actor: 'alice' });
    await events.flush();
    assert.equal(errors.length, 1, 'the failed relay was reported');
    const [claim] = await claimsOf(doc._id);
    assert.equal(claim!.event_waiting, true, 'still waiting for the sweeper');
  });
});
