import type { Db, MongoBulkWriteError } from 'mongodb';
import type { ArtifactDoc } from '../store/artifacts.js';
import {
  claimOutcomes,
  claimReleases,
  commitChunks,
  previewDocId,
  versionClaims,
  type ClaimOutcomeDoc,
  type StaleItem,
  type VersionClaimDoc,
} from '../store/commits.js';
import { deleteByIds, findByIds } from '../store/by-id.js';
import { isDuplicateKey } from '../store/mongo.js';
import { versionId, versionsCollection } from '../store/versions.js';

type Item = Pick<StaleItem, 'source_artifact_id' | 'artifact_id' | 'title'> & { current_version: number | null };

/** What claiming needs besides the store: the activity's heartbeat and sleep, and whether a commit's workflow still runs. */
export interface ClaimOptions {
  heartbeat: () => void;
  sleep: (ms: number) => Promise<void>;
  /** False once the commit's workflow has ended (completed, failed, terminated): it will claim or write nothing more. */
  commitRunning: (commitId: string) => Promise<boolean>;
}

export type ClaimResult = { outcome: 'claimed' } | { outcome: 'stale'; items: StaleItem[] };

const pollMs = 200;
/** How often a claim held by a commit that has not decided is checked for a holder that has ended. */
const livenessEveryMs = 5_000;
/** How long a commit decided stale has to delete its own claims before a claimer releases them. */
const staleLetGoMs = 60_000;
const insertSlice = 500;

const claimId = (item: Item) => versionId(item.artifact_id, (item.current_version ?? 0) + 1);

/**
 * Claims, at approval, every version a commit's preview expected: for each item written (new or
 * modified), `<artifact>:<previewed head + 1>`, by unique insert. The claims are taken in artifact id
 * order, and one held by a commit still claiming is waited for, so two approvals can never hold each
 * other's claims: of commits previewed against the same head, exactly one claims it; the others learn
 * that their preview is stale, let go of what they claimed, and write nothing. A winner's apply then
 * writes exactly the versions claimed. Idempotent: a retried attempt finds its own claims, and the
 * first recorded outcome (claimed or stale) is the answer for good.
 */
export async function claimVersions(
  db: Db,
  commit: { commitId: string; generation: number; chunks: number },
  options: ClaimOptions,
): Promise<ClaimResult> {
  const { commitId } = commit;
  // The items written are the chunks' (by primary key: a find by commit id would scan every commit's items).
  const chunkIds = Array.from({ length: commit.chunks }, (_, i) => previewDocId(commitId, commit.generation, i));
  const items: Item[] = (await findByIds(commitChunks(db), chunkIds)).flatMap((chunk) =>
    chunk.items.map((i) => ({
      source_artifact_id: i.source_artifact_id,
      artifact_id: i.artifact_id,
      title: i.snapshot.title,
      current_version: i.current_version,
    })),
  );
  items.sort((a, b) => (a.artifact_id < b.artifact_id ? -1 : a.artifact_id > b.artifact_id ? 1 : 0));
  const ids = items.map(claimId);
  const earlier = await claimOutcomes(db).findOne({ _id: commitId });
  if (earlier) return settleOutcome(db, commitId, ids, earlier);

  let taken = false;
  for (let start = 0; start < items.length && !taken;) {
    const slice = items.slice(start, start + insertSlice);
    const done = await insertInOrder(db, commitId, slice);
    start += done;
    options.heartbeat();
    if (done < slice.length) {
      // Refused at items[start]: held by someone. Ordered inserts leave everything before it ours.
      taken = (await claimOne(db, commitId, items[start]!, options)) === 'taken';
      start++;
    }
  }
  const stale = taken ? await staleItems(db, commitId, items) : await movedHeads(db, commitId, items);
  const outcome: ClaimOutcomeDoc = stale.length
    ? { _id: commitId, outcome: 'stale', stale, at: new Date() }
    : { _id: commitId, outcome: 'claimed', at: new Date() };
  try {
    await claimOutcomes(db).insertOne(outcome);
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    // Another attempt of this commit answered first: its answer stands.
    return settleOutcome(db, commitId, ids, (await claimOutcomes(db).findOne({ _id: commitId }))!);
  }
  return settleOutcome(db, commitId, ids, outcome);
}

/** The answer of a recorded outcome; a stale commit lets go of its claims (again, if a retry). */
async function settleOutcome(db: Db, commitId: string, ids: string[], outcome: ClaimOutcomeDoc): Promise<ClaimResult> {
  if (outcome.outcome === 'claimed') return { outcome: 'claimed' };
  await deleteByIds(versionClaims(db), ids, { commit_id: commitId });
  return { outcome: 'stale', items: outcome.stale ?? [] };
}

/** Inserts the claims in order, stopping at the first refused; returns how many are now this commit's. */
async function insertInOrder(db: Db, commitId: string, items: Item[]): Promise<number> {
  const claimedAt = new Date();
  const docs: VersionClaimDoc[] = items.map((item) => ({
    _id: claimId(item),
    artifact_id: item.artifact_id,
    version: (item.current_version ?? 0) + 1,
    commit_id: commitId,
    claimed_at: claimedAt,
  }));
  try {
    await versionClaims(db).insertMany(docs, { ordered: true });
    return docs.length;
  } catch (err) {
    const raw = (err as MongoBulkWriteError).writeErrors;
    const first = Array.isArray(raw) ? raw[0] : raw;
    if (first) {
      if (first.code !== 11000) throw err;
      return first.index;
    }
    if (docs.length === 1 && isDuplicateKey(err)) return 0; // a single refused insert, reported without writeErrors
    throw err;
  }
}

/**
 * One claim that was refused: this commit's own (a retry), free again (its holder let go), or held.
 * Held by a commit that claimed everything: taken, unless that commit ended without writing it (its
 * apply failed for good, or it was terminated), when the claim is released. Held by a commit still
 * claiming: waited for, and released if that commit has ended (terminated mid-claim). Ordered claiming
 * means a holder never waits for this commit, so the wait ends.
 */
async function claimOne(db: Db, commitId: string, item: Item, options: ClaimOptions): Promise<'mine' | 'taken'> {
  const id = claimId(item);
  for (let waited = 0; ; waited += pollMs) {
    if ((await insertInOrder(db, commitId, [item])) === 1) return 'mine';
    const held = await versionClaims(db).findOne({ _id: id });
    if (held?.commit_id === commitId) return 'mine';
    if (held) {
      const decided = await claimOutcomes(db).findOne({ _id: held.commit_id });
      const outcome = decided?.outcome;
      if (outcome === 'claimed' && (await versionsCollection(db).findOne({ _id: id }, { projection: { _id: 1 } }))) return 'taken';
      // A stale commit never writes: its claims are its own to delete, and left to it for a minute.
      const abandoned = outcome === 'stale' && Date.now() - decided!.at.getTime() > staleLetGoMs;
      const check = outcome === 'claimed' || waited % livenessEveryMs === 0;
      if (abandoned || (check && !(await options.commitRunning(held.commit_id)))) {
        if (await releaseEnded(db, held, outcome)) continue;
        // another claimer releases it this minute: wait for that
      } else if (outcome === 'claimed') return 'taken';
    }
    options.heartbeat();
    await options.sleep(pollMs);
  }
}

/**
 * Releases a claim whose commit has ended without writing it: that commit is first decided stale if it
 * had not decided (a late attempt of it then lets go instead of claiming), then the claim is deleted by
 * one releaser a minute (a unique insert), since a conditional delete is not atomic on the embedded engine.
 */
async function releaseEnded(db: Db, held: VersionClaimDoc, outcome: ClaimOutcomeDoc['outcome'] | undefined): Promise<boolean> {
  if (!outcome)
    await claimOutcomes(db)
      .insertOne({ _id: held.commit_id, outcome: 'stale', stale: [], at: new Date() })
      .catch((err: unknown) => {
        if (!isDuplicateKey(err)) throw err;
      });
  try {
    await claimReleases(db).insertOne({ _id: `${held._id}:${held.commit_id}:${Math.floor(Date.now() / 60_000)}`, at: new Date() });
  } catch (err) {
    if (isDuplicateKey(err)) return false; // another claimer releases it this minute
    throw err;
  }
  await versionClaims(db).deleteOne({ _id: held._id, commit_id: held.commit_id });
  return true;
}

/**
 * Every item whose previewed head moved: its claim held by another commit that won, or (commits
 * applied before claims existed) a head or version beyond the previewed one.
 */
async function staleItems(db: Db, commitId: string, items: Item[]): Promise<StaleItem[]> {
  const held = (await findByIds(versionClaims(db), items.map(claimId))).filter((h) => h.commit_id !== commitId);
  const owners = new Set(
    (await findByIds(claimOutcomes(db), [...new Set(held.map((h) => h.commit_id))]))
      .filter((o) => o.outcome === 'claimed')
      .map((o) => o._id),
  );
  const won = new Map(held.filter((h) => owners.has(h.commit_id)).map((h) => [h.artifact_id, h.version]));
  const moved = new Map((await movedHeads(db, commitId, items)).map((s) => [s.artifact_id, s]));
  return items.flatMap((item) => {
    const m = moved.get(item.artifact_id);
    if (m) return [m];
    return won.has(item.artifact_id) ? [staleOf(item, won.get(item.artifact_id)!)] : [];
  });
}

/** Items whose collection artifact is already past the previewed head (heads and versions, as stored now). */
async function movedHeads(db: Db, commitId: string, items: Item[]): Promise<StaleItem[]> {
  const ids = items.map((i) => i.artifact_id);
  // By primary key, one read each: an `$in` would scan every artifact and version on FerretDB.
  const [heads, versions] = await Promise.all([
    findByIds(db.collection<ArtifactDoc>('artifacts'), ids, { projection: { version: 1, revision: 1 } }),
    findByIds(versionsCollection(db), items.map(claimId), { projection: { artifact_id: 1, version: 1, provenance: 1 } }),
  ]);
  const now = new Map(heads.map((h) => [h._id, h.version ?? h.revision]));
  for (const v of versions)
    if (v.provenance?.commit_id !== commitId) now.set(v.artifact_id, Math.max(now.get(v.artifact_id) ?? 0, v.version));
  return items.flatMap((item) => {
    const current = now.get(item.artifact_id);
    return current !== undefined && current > (item.current_version ?? 0) ? [staleOf(item, current)] : [];
  });
}

const staleOf = (item: Item, current: number | null): StaleItem => ({
  source_artifact_id: item.source_artifact_id,
  artifact_id: item.artifact_id,
  title: item.title,
  previewed_version: item.current_version,
  current_version: current,
});
