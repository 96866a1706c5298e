// The commit approval wait (src/workflows/commit-workspace.ts) on the time-skipping test server: a
// commit nobody decides expires when exactly its expiry has passed, not before, and a decision taken
// before then still counts. The week-long default wait runs in seconds.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Api, eventually } from '../helpers/http.js';
import { startTimeSkippingPlatform, type TimeSkippingPlatform } from './time-skipping.js';

const expirySeconds = 7 * 86_400;
const minute = 60_000;

let platform: TimeSkippingPlatform;
let alice: Api & { userId: string };

before(async () => {
  platform = await startTimeSkippingPlatform({ COMMIT_EXPIRY_SECONDS: String(expirySeconds) });
  alice = await platform.newUser();
});
after(() => platform.close());

/** A commit of one draft, awaiting approval; with the test server's clock when its wait began. */
async function awaitingCommit(): Promise<{ id: string; col: string; startedAt: number; expiresAt: number }> {
  const ws = (await alice.post('/workspaces', { name: 'drafts' })).body.id as string;
  const col = (await alice.post('/collections', { name: 'published' })).body.id as string;
  const draft = await alice.post('/artifacts', { title: 'Alpha', content_type: 'text/plain', content: 'alpha', collection_id: ws });
  assert.equal(draft.status, 201, draft.text);
  const startedAt = await platform.now();
  const requested = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'a week to decide' });
  assert.equal(requested.status, 202, requested.text);
  const id = requested.body.id as string;
  const waiting = await stateOf(id, 'awaiting_approval');
  await platform.stopIndexing();
  return { id, col, startedAt, expiresAt: Date.parse(waiting.expires_at) };
}

function stateOf(id: string, state: string) {
  return eventually(
    async () => {
      const reply = await alice.get(`/commits/${id}`);
      assert.equal(reply.status, 200, reply.text);
      return reply.body.state === state ? reply.body : null;
    },
    30_000,
    `commit ${id} ${state}`,
  );
}

describe('commit approval expiry (time-skipping)', () => {
  it('expires when the configured wait has passed, not a minute before', async () => {
    const { id, col, startedAt, expiresAt } = await awaitingCommit();
    // The deadline the commit shows is the configured wait from when the preview was recorded.
    assert.ok(Math.abs(expiresAt - startedAt - expirySeconds * 1000) < minute, `expires ${expiresAt - startedAt} ms after the request`);

    await platform.skip(expiresAt - (await platform.now()) - minute);
    assert.equal((await alice.get(`/commits/${id}`)).body.state, 'awaiting_approval', 'a minute before the deadline it still waits');

    await platform.skip(2 * minute);
    const expired = await stateOf(id, 'expired');
    assert.ok((await platform.now()) >= expiresAt, 'expired only once its deadline passed');
    assert.equal(expired.decision, null);
    const late = await alice.post(`/commits/${id}/approve`, {});
    assert.equal(late.status, 409, late.text);
    assert.equal((await alice.get(`/artifacts?collection_id=${col}`)).body.items.length, 0);
  });

  it('applies an approval given a minute before the deadline', async () => {
    const { id, col, expiresAt } = await awaitingCommit();
    await platform.skip(expiresAt - (await platform.now()) - minute);
    const approved = await alice.post(`/commits/${id}/approve`, {});
    assert.equal(approved.status, 200, approved.text);
    // Past the deadline: the decision already taken stands.
    await platform.skip(2 * minute);
    const committed = await stateOf(id, 'committed');
    assert.equal(committed.decision.action, 'approve');
    assert.equal((await alice.get(`/artifacts?collection_id=${col}`)).body.items.length, 1);
  });
});
