// Issue #37: a preview decided in parts. Applying some actions leaves the rest proposed, to apply or
// discard later, until the run expires; `discard_rest` or a discard ends it. Re-applying an applied
// action is no change; naming an unknown or otherwise decided action is a problem that changes nothing.
// Decisions may come concurrently or out of order; `progress` counts the actions truthfully throughout.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { agentId } from '../../src/invocations/agents/registry.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

// Long enough for every decision below, short enough for the expiry test to watch one expire.
const expirySeconds = 40;
let platform: TestPlatform;
let alice: Api & { userId: string };

const split = agentId('split-sections');
const handbook = '# Intro\nWelcome.\n\n## Setup\nInstall it.\n\n## Usage\nRun it.\n\n## Support\nAsk us.';

before(async () => {
  platform = await startPlatform({ INVOKE_PREVIEW_EXPIRY_SECONDS: String(expirySeconds) }, { worker: true });
  alice = await platform.newUser();
});
after(() => platform?.close());

type Run = {
  invocation_id: string;
  status: string;
  actions: { id: string; status: string; artifact_id?: string }[];
  progress: Record<string, number>;
};

/** A split of the handbook into four proposed creates, in a workspace of its own. */
async function proposal(name: string): Promise<{ space: string; run: Run }> {
  const space = (await alice.post('/workspaces', { name })).body.id as string;
  const doc = await alice.post('/artifacts', { title: 'Handbook', content_type: 'text/markdown', content: handbook, collection_id: space });
  assert.equal(doc.status, 201, doc.text);
  const r = await alice.post(`/artifacts/${split}/invoke`, { artifact_ids: [doc.body.id] });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.actions.length, 4);
  return { space, run: r.body };
}

const statuses = (run: Run) => run.actions.map((a) => a.status);
const created = async (space: string) => (await alice.get(`/artifacts?collection_id=${space}`)).body.items.length - 1;
const apply = (run: Run, body: Record<string, unknown>) => alice.post(`/invocations/${run.invocation_id}/apply`, body);
const discard = (run: Run, body?: Record<string, unknown>) => alice.post(`/invocations/${run.invocation_id}/discard`, body);
const read = async (run: Run): Promise<Run> => (await alice.get(`/invocations/${run.invocation_id}`)).body;

describe('a preview decided in parts', () => {
  it('applies some now, the rest later; progress counts every state; re-applying is no change', async () => {
    const { space, run } = await proposal('parts');
    assert.equal(run.status, 'awaiting_decision');
    assert.deepEqual(run.progress, { total: 4, proposed: 4, applied: 0, skipped: 0, discarded: 0, refused: 0, conflict: 0 });

    const first = await apply(run, { action_ids: ['a2'] });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.status, 'awaiting_decision', 'the rest are still to decide');
    assert.deepEqual(statuses(first.body), ['proposed', 'applied', 'proposed', 'proposed']);
    assert.equal(first.body.progress.applied, 1);
    assert.equal(first.body.progress.proposed, 3);
    assert.equal(first.body.apply, `/invocations/${run.invocation_id}/apply`);
    assert.equal(await created(space), 1);
    const polled = await read(run);
    assert.equal(polled.status, 'awaiting_decision');
    assert.deepEqual(statuses(polled), ['proposed', 'applied', 'proposed', 'proposed']);

    // Again: the applied action is not applied twice.
    const again = await apply(run, { action_ids: ['a2'] });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(statuses(again.body), ['proposed', 'applied', 'proposed', 'proposed']);
    assert.equal(again.body.actions[1].artifact_id, first.body.actions[1].artifact_id);
    assert.equal(await created(space), 1);

    const second = await apply(run, { action_ids: ['a4', 'a1'] });
    assert.equal(second.body.status, 'awaiting_decision', second.text);
    assert.deepEqual(statuses(second.body), ['applied', 'applied', 'proposed', 'applied']);
    const last = await apply(run, { action_ids: ['a3'] });
    assert.equal(last.body.status, 'completed', 'nothing left to decide: the run ends');
    assert.deepEqual(last.body.progress, { total: 4, proposed: 0, applied: 4, skipped: 0, discarded: 0, refused: 0, conflict: 0 });
    assert.deepEqual(
      last.body.decisions.map((d: { action_ids: string[] }) => d.action_ids),
      [['a2'], ['a2'], ['a4', 'a1'], ['a3']],
    );
    assert.equal(await created(space), 4);
    const over = await apply(run, { action_ids: ['a1'] });
    assert.equal(over.status, 409, over.text);
    assert.match(over.body.type, /invocation-not-pending$/);
  });

  it('discards the rest explicitly: with the apply (discard_rest), or by a discard', async () => {
    const { space, run } = await proposal('rest');
    const r = await apply(run, { action_ids: ['a1'], discard_rest: true });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'completed');
    assert.deepEqual(statuses(r.body), ['applied', 'discarded', 'discarded', 'discarded']);
    assert.equal(r.body.progress.discarded, 3);
    assert.equal(await created(space), 1);
    const late = await apply(run, { action_ids: ['a2'] });
    assert.equal(late.status, 409, 'apply after the rest was discarded');
    assert.equal(await created(space), 1);

    const other = await proposal('rest-later');
    await apply(other.run, { action_ids: ['a3'] });
    const d = await discard(other.run);
    assert.equal(d.status, 200, d.text);
    assert.equal(d.body.status, 'completed', 'something was applied: the run completed, the rest discarded');
    assert.deepEqual(statuses(d.body), ['discarded', 'discarded', 'applied', 'discarded']);
    assert.equal((await apply(other.run, {})).status, 409, 'apply after discard');
    assert.equal(await created(other.space), 1);
  });

  it('discards some, and refuses to apply what was discarded, or an action it does not have, changing nothing', async () => {
    const { space, run } = await proposal('some');
    const d = await discard(run, { action_ids: ['a1', 'a4'] });
    assert.equal(d.status, 200, d.text);
    assert.equal(d.body.status, 'awaiting_decision');
    assert.deepEqual(statuses(d.body), ['discarded', 'proposed', 'proposed', 'discarded']);

    const discarded = await apply(run, { action_ids: ['a2', 'a1'] });
    assert.equal(discarded.status, 409, discarded.text);
    assert.match(discarded.body.type, /action-not-proposed$/);
    assert.match(discarded.body.detail, /a1 is discarded/);
    const unknown = await apply(run, { action_ids: ['a9'] });
    assert.equal(unknown.status, 400, unknown.text);
    assert.match(unknown.body.type, /validation-error$/);
    assert.equal(unknown.body.invalid_params[0].name, 'action_ids');
    const twice = await apply(run, { action_ids: ['a2', 'a2'] });
    assert.equal(twice.status, 400, twice.text);
    const restWithoutIds = await apply(run, { discard_rest: true });
    assert.equal(restWithoutIds.status, 400, restWithoutIds.text);
    const rediscard = await discard(run, { action_ids: ['a4'] });
    assert.equal(rediscard.status, 409, 'discarding a discarded action is refused too');
    // None of the refused decisions changed anything.
    const now = await read(run);
    assert.equal(now.status, 'awaiting_decision');
    assert.deepEqual(statuses(now), ['discarded', 'proposed', 'proposed', 'discarded']);
    assert.equal(await created(space), 0);

    const all = await discard(run);
    assert.equal(all.body.status, 'discarded', 'nothing was applied: the run is discarded');
    assert.deepEqual(statuses(all.body), ['discarded', 'discarded', 'discarded', 'discarded']);
    assert.equal(await created(space), 0);
  });

  it('takes concurrent decisions one after another: two partial applies at once, and an apply racing a discard of the same action', async () => {
    const { space, run } = await proposal('concurrent');
    const [x, y] = await Promise.all([apply(run, { action_ids: ['a1'] }), apply(run, { action_ids: ['a2', 'a3'] })]);
    assert.equal(x.status, 200, x.text);
    assert.equal(y.status, 200, y.text);
    const now = await read(run);
    assert.deepEqual(statuses(now), ['applied', 'applied', 'applied', 'proposed']);
    assert.equal(now.status, 'awaiting_decision');
    assert.equal(await created(space), 3, 'each applied once');

    const [ap, dis] = await Promise.all([apply(run, { action_ids: ['a4'] }), discard(run, { action_ids: ['a4'] })]);
    const won = [ap, dis].filter((r) => r.status === 200);
    assert.equal(won.length, 1, `exactly one decision on a4 is taken: ${ap.status} ${dis.status}`);
    const lost = ap.status === 200 ? dis : ap;
    assert.equal(lost.status === 409 ? 'refused' : lost.text, 'refused');
    const end = await read(run);
    assert.equal(end.status, 'completed');
    assert.equal(end.actions[3]!.status, ap.status === 200 ? 'applied' : 'discarded');
    assert.equal(await created(space), ap.status === 200 ? 4 : 3);
  });

  it('expires with what was applied kept and the rest discarded; a decision after that is refused', async () => {
    const { space, run } = await proposal('expiry');
    const r = await apply(run, { action_ids: ['a2'] });
    assert.equal(r.body.status, 'awaiting_decision', r.text);
    const expired = await eventually(
      async () => {
        const now = await read(run);
        return now.status === 'expired' && now;
      },
      (expirySeconds + 30) * 1000,
      'the run to expire',
    );
    assert.deepEqual(statuses(expired), ['discarded', 'applied', 'discarded', 'discarded']);
    assert.deepEqual(expired.progress, { total: 4, proposed: 0, applied: 1, skipped: 0, discarded: 3, refused: 0, conflict: 0 });
    const late = await apply(run, { action_ids: ['a1'] });
    assert.equal(late.status, 409, late.text);
    assert.match(late.body.type, /invocation-not-pending$/);
    assert.equal(await created(space), 1);
  });
});
