import { ApplicationFailure } from '@temporalio/common';
import type { Collection, Db } from 'mongodb';
import { appendKey, type ArtifactDoc } from '../store/artifacts.js';
import {
  commitChunks,
  commitResultId,
  commitResults,
  commitsCollection,
  previewDocId,
  type CommitChunkDoc,
  type CommitDoc,
  type CommitResultDoc,
} from '../store/commits.js';
import { KeyedLock } from '../store/keyed-lock.js';
import { containerCollection, settleShares } from '../store/containers.js';
import { isDuplicateKey } from '../store/mongo.js';
import { versionId, versionsCollection, type VersionDoc } from '../store/versions.js';

type ChunkItem = CommitChunkDoc['items'][number];

const conflictRetries = 20;

/**
 * Head moves into one collection, one chunk at a time per process: FerretDB v1 does not isolate
 * concurrent updates of a document, and two commits of the same draft must not leave its head on
 * the older version (docs/decisions.md).
 */
const headLocks = new KeyedLock();

/**
 * Applies one chunk of an approved commit: each item becomes a version of its collection artifact,
 * and the artifact's head moves to it. Built from a handful of bulk writes, since the common case
 * has no conflict; every step is idempotent, so a retried or replayed chunk (a worker killed
 * mid-way) finishes the job without a second version.
 *
 * A version's `_id` is `<artifact>:<n>`. Writing tries the version the preview expected; a number
 * already taken is looked at: this commit's (a retry) is kept, another commit's sends it on to the
 * next number. Numbers are only ever filled, so a retry meets its own version before any free one.
 */
export class CommitApplier {
  constructor(
    private readonly db: Db,
    private readonly heartbeat: () => void = () => undefined,
  ) {}

  private get artifacts() {
    return this.db.collection<ArtifactDoc>('artifacts');
  }

  /** Applies chunk `index`; returns the version each of its items became. */
  async applyChunk(commit: CommitDoc, index: number): Promise<CommitResultDoc['results']> {
    const chunk =
      commit.generation === undefined
        ? null
        : await commitChunks(this.db).findOne({ _id: previewDocId(commit._id, commit.generation, index) });
    if (!chunk) throw ApplicationFailure.nonRetryable(`commit ${commit._id} has no recorded chunk ${index}`, 'ChunkMissing');
    const versions = await this.writeVersions(commit, chunk.items);
    this.heartbeat();
    await headLocks.run(commit.collection_id, () => this.moveHeads(commit, chunk.items, versions));
    this.heartbeat();
    const results: CommitResultDoc = {
      _id: commitResultId(commit._id, index),
      commit_id: commit._id,
      index,
      results: chunk.items.map((item, i) => ({
        source_artifact_id: item.source_artifact_id,
        artifact_id: item.artifact_id,
        version: versions[i]!.version,
        content_type: item.snapshot.content_type,
        has_vector: Boolean(item.snapshot.search),
      })),
    };
    await commitResults(this.db).replaceOne({ _id: results._id }, results, { upsert: true });
    const applied = chunk.offset + chunk.items.length;
    await commitsCollection(this.db).updateOne(
      { _id: commit._id, applied: { $lt: applied } },
      { $set: { applied, updated_at: new Date() } },
    );
    return results.results;
  }

  private async writeVersions(commit: CommitDoc, items: ChunkItem[]): Promise<VersionDoc[]> {
    const versions = items.map((item) => this.versionOf(commit, item, item.version));
    for (const i of await insertEach(versionsCollection(this.db), versions)) versions[i] = await this.claimVersion(commit, items[i]!);
    return versions;
  }

  /** The version this commit holds for the item, or the first free number after the preview's. */
  private async claimVersion(commit: CommitDoc, item: ChunkItem): Promise<VersionDoc> {
    const coll = versionsCollection(this.db);
    let n = (item.current_version ?? 0) + 1;
    for (let attempt = 0; attempt < conflictRetries; attempt++) {
      const taken = await coll.findOne({ _id: versionId(item.artifact_id, n) });
      if (taken?.provenance.commit_id === commit._id) return taken;
      if (taken) {
        n++;
        continue;
      }
      const version = this.versionOf(commit, item, n);
      try {
        await coll.insertOne(version);
        return version;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err; // taken meanwhile: look at it again
      }
    }
    throw ApplicationFailure.nonRetryable(`version of ${item.artifact_id} kept conflicting`, 'VersionConflict');
  }

  private versionOf(commit: CommitDoc, item: ChunkItem, version: number): VersionDoc {
    const s = item.snapshot;
    return {
      _id: versionId(item.artifact_id, version),
      artifact_id: item.artifact_id,
      collection_id: commit.collection_id,
      version,
      title: s.title,
      content_type: s.content_type,
      content: s.content,
      context: s.context,
      provenance: {
        drafted_by: s.drafted_by,
        last_edited_by: s.last_edited_by,
        commit_id: commit._id,
        requested_by: commit.requested_by,
        approved_by: commit.decision?.by ?? null,
        source_artifact_id: item.source_artifact_id,
        source_revision: item.source_revision,
        committed_at: new Date(),
      },
    };
  }

  /**
   * Points each collection artifact at its new version: a first version creates the artifact (at the
   * end of the collection), a later one updates it unless a newer version is already there.
   */
  private async moveHeads(commit: CommitDoc, items: ChunkItem[], versions: VersionDoc[]): Promise<void> {
    const updates = items.flatMap((item, i) =>
      item.current_version === null
        ? []
        : [
            {
              updateOne: {
                filter: { _id: item.artifact_id, version: { $lt: versions[i]!.version } },
                update: this.headUpdate(commit, item, versions[i]!),
              },
            },
          ],
    );
    if (updates.length) await this.artifacts.bulkWrite(updates, { ordered: false });
    for (const item of items) if (item.current_version !== null) await this.headToNewest(item.artifact_id);

    const fresh = items.flatMap((item, i) => (item.current_version === null ? [[item, versions[i]!] as const] : []));
    if (fresh.length === 0) return;
    const collections = containerCollection(this.db, 'collection');
    let key = (await collections.findOne({ _id: commit.collection_id }))?.last_order_key ?? null;
    const heads = fresh.map(([item, v]) => this.newHead(commit, item, v, (key = appendKey(key))));
    // Refused: created meanwhile (by a retried attempt, or another commit of the same draft), or the key was taken.
    for (const i of await insertEach(this.artifacts, heads)) await this.settleHead(commit, fresh[i]![0], fresh[i]![1]);
    await collections.updateOne(
      { _id: commit.collection_id, $or: [{ last_order_key: null }, { last_order_key: { $lt: key! } }] },
      { $set: { last_order_key: key } },
    );
    await settleShares(this.db, 'collection', commit.collection_id); // the engine may have written back shares it read
  }

  /**
   * The engine does not isolate updates of one document, so the head update of an older version
   * (another commit of the same draft, in another worker) may land after a newer one: the versions,
   * each a unique insert, are the record, and the head is brought to the newest of them. The version
   * of another commit carries no vector here; its text is embedded again by indexing.
   */
  private async headToNewest(artifactId: string): Promise<void> {
    for (let round = 0; round < conflictRetries; round++) {
      const [head, newest] = await Promise.all([
        this.artifacts.findOne({ _id: artifactId }, { projection: { version: 1 } }),
        versionsCollection(this.db).find({ artifact_id: artifactId }).sort({ version: -1 }).limit(1).next(),
      ]);
      if (!head || !newest || (head.version ?? 0) >= newest.version) return;
      const p = newest.provenance;
      await this.artifacts.updateOne(
        { _id: artifactId, version: { $lt: newest.version } },
        {
          $set: {
            title: newest.title,
            content_type: newest.content_type,
            content: newest.content,
            context: newest.context,
            revision: newest.version,
            version: newest.version,
            'provenance.updated_by': p.last_edited_by,
            'provenance.updated_at': new Date(),
            'provenance.source': {
              kind: 'commit',
              ...(p.commit_id ? { commit_id: p.commit_id } : {}),
              ...(p.source_artifact_id ? { derived_from: p.source_artifact_id } : {}),
              ...(p.approved_by ? { approved_by: p.approved_by } : {}),
            },
          },
          $unset: { search: '' },
        },
      );
    }
  }

  private async settleHead(commit: CommitDoc, item: ChunkItem, version: VersionDoc): Promise<void> {
    const collections = containerCollection(this.db, 'collection');
    for (let attempt = 0; attempt < conflictRetries; attempt++) {
      if (await this.artifacts.findOne({ _id: item.artifact_id }, { projection: { _id: 1 } })) {
        await this.artifacts.updateOne(
          { _id: item.artifact_id, version: { $lt: version.version } },
          this.headUpdate(commit, item, version),
        );
        await this.headToNewest(item.artifact_id);
        return;
      }
      const last = (await collections.findOne({ _id: commit.collection_id }))?.last_order_key ?? null;
      const head = this.newHead(commit, item, version, appendKey(last));
      try {
        await this.artifacts.insertOne(head);
        await collections.updateOne(
          { _id: commit.collection_id, $or: [{ last_order_key: null }, { last_order_key: { $lt: head.order_key } }] },
          { $set: { last_order_key: head.order_key } },
        );
        await settleShares(this.db, 'collection', commit.collection_id);
        return;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
    throw ApplicationFailure.nonRetryable(`collection artifact ${item.artifact_id} kept conflicting`, 'VersionConflict');
  }

  private source(commit: CommitDoc, item: ChunkItem): ArtifactDoc['provenance']['source'] {
    return {
      kind: 'commit',
      commit_id: commit._id,
      derived_from: item.source_artifact_id,
      ...(commit.decision ? { approved_by: commit.decision.by } : {}),
    };
  }

  /** The draft's embedding carries over when it was of exactly the committed text. */
  private searchOf(item: ChunkItem, v: VersionDoc): Pick<ArtifactDoc, 'search'> {
    const search = item.snapshot.search;
    return search ? { search: { ...search, revision: v.version } } : {};
  }

  private newHead(commit: CommitDoc, item: ChunkItem, v: VersionDoc, orderKey: string): ArtifactDoc {
    const now = new Date();
    return {
      _id: v.artifact_id,
      title: v.title,
      content_type: v.content_type,
      content: v.content,
      context: v.context,
      collection_id: v.collection_id,
      container_kind: 'collection',
      order_key: orderKey,
      revision: v.version,
      version: v.version,
      provenance: {
        created_by: v.provenance.drafted_by,
        created_at: now,
        updated_by: v.provenance.last_edited_by,
        updated_at: now,
        source: this.source(commit, item),
      },
      ...this.searchOf(item, v),
    };
  }

  private headUpdate(commit: CommitDoc, item: ChunkItem, v: VersionDoc) {
    const carried = this.searchOf(item, v);
    return {
      $set: {
        title: v.title,
        content_type: v.content_type,
        content: v.content,
        context: v.context,
        revision: v.version,
        version: v.version,
        'provenance.updated_by': v.provenance.last_edited_by,
        'provenance.updated_at': new Date(),
        'provenance.source': this.source(commit, item),
        ...carried,
      },
      ...(carried.search ? {} : { $unset: { search: '' as const } }),
    };
  }
}

/** Inserts every document it can; returns the positions of those refused as duplicates. */
async function insertEach<T extends { _id: string }>(coll: Collection<T>, docs: T[]): Promise<number[]> {
  if (docs.length === 0) return [];
  try {
    await coll.insertMany(docs as never[], { ordered: false });
    return [];
  } catch (err) {
    const raw = (err as { writeErrors?: { index: number; code: number }[] | { index: number; code: number } }).writeErrors;
    const errors = Array.isArray(raw) ? raw : raw ? [raw] : [];
    if (errors.length === 0 || errors.some((e) => e.code !== 11000)) throw err;
    return errors.map((e) => e.index);
  }
}
