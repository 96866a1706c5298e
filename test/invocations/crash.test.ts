// A worker killed while an invocation applies its actions: the next worker finishes the apply, and
// every action is applied exactly once (one artifact, one event each).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { agentId } from '../../src/invocations/agents/registry.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { workerProcess } from '../helpers/worker-process.js';
import { eventsWorkflowId } from '../../src/workflows/contracts/ids.js';
import { pendingEventsQuery } from '../../src/workflows/contracts/workspace-events.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
before(async () => {
  platform = await startPlatform({}, { worker: false });
  alice = await platform.newUser();
});
after(() => platform.close());

const sections = 200;

describe('a worker killed mid-apply', () => {
  it('applies each action exactly once when the next worker takes over', async () => {
    const artifacts = platform.services.db.collection('artifacts');
    let worker = await workerProcess(platform);
    try {
      // The kill must land inside the apply; an attempt whose apply finished first proves nothing,
      // and another invocation is tried (at most three).
      let id = '';
      let atKill = sections;
      let applying: ReturnType<Api['post']> = Promise.resolve({ status: 0, text: '', body: {} } as never);
      for (let attempt = 1; attempt <= 3 && atKill >= sections; attempt++) {
        if (attempt > 1) worker = await workerProcess(platform);
        const ws = (await alice.post('/workspaces', { name: `crash-apply-${attempt}` })).body.id;
        const content = Array.from({ length: sections }, (_, i) => `## S${i}\nSection ${i} body.`).join('\n\n');
        const doc = (await alice.post('/artifacts', { title: 'Long', content_type: 'text/markdown', content, collection_id: ws })).body.id;
        const proposed = await alice.post(`/artifacts/${agentId('split-sections')}/invoke`, { artifact_ids: [doc], wait_seconds: 60 });
        assert.equal(proposed.status, 200, proposed.text);
        assert.equal(proposed.body.actions.length, sections);
        id = proposed.body.invocation_id;
        const made = () => artifacts.countDocuments({ 'provenance.source.invocation_id': id });
        // The apply's first batches run as local activities inside the workflow task that accepts the
        // decision, so a quick apply is over before the decision is answered: the request is not
        // awaited. The worker is run in short slices (SIGCONT, a few ms, SIGSTOP) and counted while it
        // is stopped, so the kill lands inside the apply however slow the count is next to it.
        worker.kill('SIGSTOP');
        applying = alice.post(`/invocations/${id}/apply`, { wait_seconds: 0 });
        atKill = await made();
        for (const deadline = Date.now() + 60_000; atKill === 0 && Date.now() < deadline;) {
          worker.kill('SIGCONT');
          await new Promise((r) => setTimeout(r, 5));
          worker.kill('SIGSTOP');
          atKill = await made();
        }
        worker.kill('SIGKILL');
      }
      console.log(`[crash] killed with ${atKill} of ${sections} applied`);
      assert.ok(atKill > 0 && atKill < sections, `killed mid-apply (${atKill} of ${sections} made) in one of three attempts`);

      worker = await workerProcess(platform);
      // The decision outlives the worker that was taking it: the next worker takes it again.
      const answered = await applying;
      assert.ok([200, 202].includes(answered.status), answered.text);
      const done = await eventually(
        async () => {
          const r = await alice.get(`/invocations/${id}`);
          return r.body.status === 'completed' ? r.body : null;
        },
        90_000,
        'the apply completed by the next worker',
      );
      assert.equal(done.actions.filter((a: { status: string }) => a.status === 'applied').length, sections);

      const docs = await artifacts.find({ 'provenance.source.invocation_id': id }).toArray();
      assert.equal(docs.length, sections);
      assert.equal(new Set(docs.map((d) => d.provenance.source.action_id)).size, sections, 'one artifact per action');
      assert.equal(new Set(docs.map((d) => d.title)).size, sections);
      const ids = docs.map((d) => d._id);
      const recorded = () =>
        platform.services.db.collection('events').countDocuments({ artifact_id: { $in: ids }, kind: 'artifact_created' });
      // A liveness bound, generous for a loaded CI machine: the killed worker's tasks wait for their
      // timeouts (sticky queue, workflow task, record activity, dispatch heartbeat) before the next worker takes them.
      await eventually(async () => (await recorded()) >= sections, 120_000, 'the events recorded').catch(async (err: Error) => {
        // What was left where, for whoever reads the failure: waiting in the outbox, or in the workflow's queue.
        const waiting = await platform.services.db
          .collection('artifact_revisions')
          .countDocuments({ artifact_id: { $in: ids }, event_waiting: true });
        const queued = await platform.services.temporal.workflow
          .getHandle(eventsWorkflowId(docs[0]!.collection_id))
          .query(pendingEventsQuery)
          .catch((e: Error) => `unknown (${e.message})`);
        const withEvent = new Set(
          (
            await platform.services.db
              .collection('events')
              .find({ artifact_id: { $in: ids }, kind: 'artifact_created' })
              .toArray()
          ).map((e) => e.artifact_id),
        );
        const missing = ids.filter((a) => !withEvent.has(a));
        const claims = await platform.services.db
          .collection('artifact_revisions')
          .find({ artifact_id: { $in: missing } })
          .toArray();
        const events = await platform.services.db
          .collection('events')
          .find({ artifact_id: { $in: missing } })
          .toArray();
        throw new Error(
          `${err.message}: ${await recorded()} of ${sections} recorded, ${waiting} waiting in the outbox, ${queued} queued in the event workflow; ` +
            `without one: ${JSON.stringify(missing)}, their claims ${JSON.stringify(claims)}, their events ${JSON.stringify(events)}`,
        );
      });
      assert.equal(
        await platform.services.db.collection('events').countDocuments({ artifact_id: { $in: ids }, kind: 'artifact_created' }),
        sections,
        'one event per action',
      );
    } finally {
      worker.kill('SIGTERM');
    }
  });
});
