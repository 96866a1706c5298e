// Approval claims against the real MongoDB-wire engine, without Temporal: commits previewed against
// the same heads, claimed at once over separate connections, leave exactly one winner per contested
// artifact, refuse the others as stale naming what moved, and keep no claim of a refused commit.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Db } from 'mongodb';
import type { StoreClient } from '../../src/store/mongo.js';
import { claimVersions, type ClaimResult } from '../../src/commits/claims.js';
import { claimOutcomes, commitChunks, versionClaims } from '../../src/store/commits.js';
import { createStoreClient, ensureIndexes } from '../../src/store/mongo.js';

const clients: StoreClient[] = [];
let db: Db;
const dbName = `test_claims_${randomBytes(4).toString('hex')}`;

before(async () => {
  // One connection pool per claimer: as separate processes would, they share nothing but the engine.
  for (let i = 0; i < 4; i++) clients.push(createStoreClient(process.env.TEST_STORE_URI!));
  db = clients[0]!.db(dbName);
  await ensureIndexes(db);
});
after(async () => {
  await db.dropDatabase();
  await Promise.all(clients.map((c) => c.close()));
});

/** A commit whose preview writes each artifact on top of `base` (null: new): one chunk, as recordPreview writes it. */
async function previewed(artifacts: string[], base: number | null): Promise<string> {
  const id = randomUUID();
  await commitChunks(db).insertOne({
    _id: `${id}:1:0`,
    commit_id: id,
    generation: 1,
    index: 0,
    offset: 0,
    items: artifacts.map((artifact_id) => ({
      source_artifact_id: `draft-of-${artifact_id}`,
      source_revision: 1,
      artifact_id,
      version: (base ?? 0) + 1,
      current_version: base,
      snapshot: {
        title: artifact_id,
        content_type: 'text/plain',
        content: artifact_id,
        context: {},
        drafted_by: 'someone',
        last_edited_by: 'someone',
      },
    })),
  });
  return id;
}

/**
 * Commits whose workflow has ended (completed, failed, terminated), as Temporal would answer: these tests
 * run the claims against the engine alone; test/commits/stale.test.ts runs them through the workflow.
 */
const ended = new Set<string>();
const options = {
  heartbeat: () => undefined,
  sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
  commitRunning: async (commitId: string) => !ended.has(commitId),
};
const claim = (commitId: string, i: number) =>
  claimVersions(clients[i % clients.length]!.db(dbName), { commitId, generation: 1, chunks: 1 }, options);

describe('claimVersions', () => {
  it('relies on ordered inserts stopping at the first refused document (claims are taken in order)', async () => {
    const coll = db.collection<{ _id: string }>(`ordered_${randomBytes(3).toString('hex')}`);
    await coll.insertOne({ _id: 'b' });
    await assert.rejects(coll.insertMany([{ _id: 'a' }, { _id: 'b' }, { _id: 'c' }], { ordered: true }));
    assert.deepEqual(
      (await coll.find().sort({ _id: 1 }).toArray()).map((d) => d._id),
      ['a', 'b'],
    );
  });

  it('of four commits previewed against the same head, exactly one claims it', async () => {
    const x = randomUUID();
    const commits = await Promise.all([0, 1, 2, 3].map(() => previewed([x], 2)));
    const results = await Promise.all(commits.map(claim));
    const winners = commits.filter((_, i) => results[i]!.outcome === 'claimed');
    assert.equal(winners.length, 1, JSON.stringify(results));
    for (const r of results.filter((r): r is Extract<ClaimResult, { outcome: 'stale' }> => r.outcome === 'stale'))
      assert.deepEqual(r.items, [
        { source_artifact_id: `draft-of-${x}`, artifact_id: x, title: x, previewed_version: 2, current_version: 3 },
      ]);
    assert.deepEqual(
      (await versionClaims(db).find({ artifact_id: x }).toArray()).map((c) => [c._id, c.commit_id]),
      [[`${x}:3`, winners[0]]],
      'only the winner holds a claim',
    );
    // Asking again answers the same, whatever happened since.
    assert.deepEqual(await Promise.all(commits.map(claim)), results);
  });

  it('three commits overlapping pairwise on three artifacts: one wins all of its own, the others hold nothing', async () => {
    for (let round = 0; round < 5; round++) {
      const [x, y, z] = [randomUUID(), randomUUID(), randomUUID()];
      const commits = await Promise.all([previewed([x, y], null), previewed([y, z], null), previewed([z, x], null)]);
      const results = await Promise.all(commits.map(claim));
      const winners = commits.filter((_, i) => results[i]!.outcome === 'claimed');
      assert.equal(winners.length, 1, `round ${round}: ${JSON.stringify(results)}`);
      const held = await versionClaims(db)
        .find({ artifact_id: { $in: [x, y, z] } })
        .toArray();
      assert.equal(held.length, 2, 'the winner holds its two claims');
      assert.ok(held.every((c) => c.commit_id === winners[0] && c.version === 1));
    }
  });

  it('finds a preview stale when the head moved without claims (a commit applied before claims existed)', async () => {
    const x = randomUUID();
    await db.collection('artifacts').insertOne({ _id: x as never, version: 4, revision: 4 });
    const result = await claim(await previewed([x], 3), 0);
    assert.deepEqual(result, {
      outcome: 'stale',
      items: [{ source_artifact_id: `draft-of-${x}`, artifact_id: x, title: x, previewed_version: 3, current_version: 4 }],
    });
    assert.equal(await versionClaims(db).countDocuments({ artifact_id: x }), 0);
  });

  it('releases the claims of a commit that won but ended without writing them (its apply failed, or it was terminated)', async () => {
    const x = randomUUID();
    const first = await previewed([x], 1);
    assert.deepEqual(await claim(first, 0), { outcome: 'claimed' });
    const second = await previewed([x], 1);
    // While the winner runs, its claim stands: the second preview is stale.
    assert.equal((await claim(second, 1)).outcome, 'stale');
    ended.add(first);
    const third = await previewed([x], 1);
    assert.deepEqual(await claim(third, 2), { outcome: 'claimed' }, 'the ended winner wrote nothing: the head is still 1');
    assert.deepEqual(
      (await versionClaims(db).find({ artifact_id: x }).toArray()).map((c) => c.commit_id),
      [third],
    );
  });

  it('a commit that wrote its claimed version keeps it after it ended', async () => {
    const x = randomUUID();
    const first = await previewed([x], null);
    assert.deepEqual(await claim(first, 0), { outcome: 'claimed' });
    await db.collection('artifact_versions').insertOne({ _id: `${x}:1` as never, artifact_id: x, version: 1 });
    ended.add(first);
    assert.equal((await claim(await previewed([x], null), 1)).outcome, 'stale');
  });

  it('waits for a commit still claiming, and releases its claims once it has ended (terminated mid-claim)', async () => {
    const x = randomUUID();
    const holder = randomUUID();
    // What a claiming attempt leaves when its workflow is terminated before it decides: a claim, no outcome.
    await versionClaims(db).insertOne({ _id: `${x}:1`, artifact_id: x, version: 1, commit_id: holder, claimed_at: new Date() });
    let settled = false;
    const waiting = claim(await previewed([x], null), 1).finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal(settled, false, 'a holder that still runs is waited for');
    ended.add(holder);
    assert.deepEqual(await waiting, { outcome: 'claimed' });
    assert.equal((await claimOutcomes(db).findOne({ _id: holder }))?.outcome, 'stale', 'the ended holder can no longer claim');
  });
});
