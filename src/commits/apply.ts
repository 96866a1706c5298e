import type { AnyBulkWriteOperation, Db } from 'mongodb';
import { appendKey, type ArtifactDoc } from '../store/artifacts.js';
import { commitItems, commitsCollection, type CommitDoc, type CommitItemDoc } from '../store/commits.js';
import { containerCollection } from '../store/containers.js';
import { isDuplicateKey } from '../store/mongo.js';
import { versionId, versionsCollection, type VersionDoc } from '../store/versions.js';

const conflictRetries = 10;

/**
 * Applies one batch of an approved commit: each item becomes a version of its collection artifact,
 * and the artifact's head moves to it. Every step is idempotent, so a retried or replayed batch
 * (a worker killed mid-way) finishes the job without a second version: a version is found again by
 * (artifact, commit), which a unique index guards, and the head only moves forward.
 */
export class CommitApplier {
  constructor(
    private readonly db: Db,
    private readonly heartbeat: () => void = () => undefined,
  ) {}

  private get artifacts() {
    return this.db.collection<ArtifactDoc>('artifacts');
  }

  async applyBatch(commit: CommitDoc, offset: number, limit: number): Promise<CommitItemDoc[]> {
    const items = await commitItems(this.db)
      .find({ commit_id: commit._id, apply_index: { $gte: offset, $lt: offset + limit } })
      .sort({ apply_index: 1 })
      .toArray();
    if (items.length === 0) return [];
    const versions = await this.writeVersions(commit, items);
    this.heartbeat();
    await this.moveHeads(commit, versions);
    this.heartbeat();
    await commitItems(this.db).bulkWrite(
      items.map((item) => ({ updateOne: { filter: { _id: item._id }, update: { $set: { applied_version: versions.get(item._id)!.version } } } })),
      { ordered: false },
    );
    await commitsCollection(this.db).updateOne({ _id: commit._id, applied: { $lt: offset + items.length } }, { $set: { applied: offset + items.length, updated_at: new Date() } });
    return items.map((item) => ({ ...item, applied_version: versions.get(item._id)!.version }));
  }

  /** The version of each item: the one this commit already wrote, or a new one after the latest. */
  private async writeVersions(commit: CommitDoc, items: CommitItemDoc[]): Promise<Map<string, VersionDoc>> {
    const ids = items.map((i) => i.artifact_id);
    const coll = versionsCollection(this.db);
    const mine = new Map((await coll.find({ artifact_id: { $in: ids }, 'provenance.commit_id': commit._id }).toArray()).map((v) => [v.artifact_id, v]));
    const latest = new Map<string, number>();
    for (const v of await coll.find({ artifact_id: { $in: ids } }, { projection: { artifact_id: 1, version: 1 } }).toArray()) {
      latest.set(v.artifact_id, Math.max(latest.get(v.artifact_id) ?? 0, v.version));
    }
    const result = new Map<string, VersionDoc>();
    const fresh: [CommitItemDoc, VersionDoc][] = [];
    for (const item of items) {
      const found = mine.get(item.artifact_id);
      if (found) result.set(item._id, found);
      else fresh.push([item, this.versionOf(commit, item, (latest.get(item.artifact_id) ?? 0) + 1)]);
    }
    const failed = await insertEach(coll, fresh.map(([, v]) => v));
    fresh.forEach(([item, v], i) => !failed.has(i) && result.set(item._id, v));
    // A number taken meanwhile (another commit into the same artifact), or an attempt that raced this one.
    for (const i of failed) result.set(fresh[i]![0]._id, await this.writeVersion(commit, fresh[i]![0]));
    return result;
  }

  private async writeVersion(commit: CommitDoc, item: CommitItemDoc): Promise<VersionDoc> {
    const coll = versionsCollection(this.db);
    for (let attempt = 0; attempt < conflictRetries; attempt++) {
      const mine = await coll.findOne({ artifact_id: item.artifact_id, 'provenance.commit_id': commit._id });
      if (mine) return mine;
      const last = await coll.find({ artifact_id: item.artifact_id }).sort({ version: -1 }).limit(1).next();
      const version = this.versionOf(commit, item, (last?.version ?? 0) + 1);
      try {
        await coll.insertOne(version);
        return version;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
    throw new Error(`version of ${item.artifact_id} kept conflicting`);
  }

  private versionOf(commit: CommitDoc, item: CommitItemDoc, version: number): VersionDoc {
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

  /** Points each collection artifact at its newest version, creating the artifact on its first one. */
  private async moveHeads(commit: CommitDoc, versions: Map<string, VersionDoc>): Promise<void> {
    const all = [...versions.values()];
    const existing = new Set((await this.artifacts.find({ _id: { $in: all.map((v) => v.artifact_id) } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
    const snapshots = new Map((await commitItems(this.db).find({ commit_id: commit._id, artifact_id: { $in: all.map((v) => v.artifact_id) } }).toArray()).map((i) => [i.artifact_id, i.snapshot]));
    const updates: AnyBulkWriteOperation<ArtifactDoc>[] = all
      .filter((v) => existing.has(v.artifact_id))
      .map((v) => ({ updateOne: { filter: { _id: v.artifact_id, version: { $lt: v.version } }, update: this.headUpdate(commit, v, snapshots.get(v.artifact_id)?.search) } }));
    if (updates.length) await this.artifacts.bulkWrite(updates, { ordered: false });

    const created = all.filter((v) => !existing.has(v.artifact_id));
    if (created.length === 0) return;
    const container = await containerCollection(this.db, 'collection').findOne({ _id: commit.collection_id });
    let key = container?.last_order_key ?? null;
    const heads: ArtifactDoc[] = [];
    for (const v of created) {
      key = appendKey(key);
      heads.push(this.newHead(commit, v, key, snapshots.get(v.artifact_id)?.search));
    }
    const failed = await insertEach(this.artifacts, heads);
    for (const i of failed) await this.insertHead(commit, heads[i]!, created[i]!);
    await containerCollection(this.db, 'collection').updateOne(
      { _id: commit.collection_id, $or: [{ last_order_key: null }, { last_order_key: { $lt: key! } }] },
      { $set: { last_order_key: key } },
    );
  }

  /** A head whose insert failed: it exists by now (a racing attempt), or its order key was taken. */
  private async insertHead(commit: CommitDoc, head: ArtifactDoc, version: VersionDoc): Promise<void> {
    for (let attempt = 0; attempt < conflictRetries; attempt++) {
      if (await this.artifacts.findOne({ _id: head._id }, { projection: { _id: 1 } })) {
        await this.artifacts.updateOne({ _id: head._id, version: { $lt: version.version } }, this.headUpdate(commit, version, head.search));
        return;
      }
      const container = await containerCollection(this.db, 'collection').findOne({ _id: commit.collection_id });
      try {
        await this.artifacts.insertOne({ ...head, order_key: appendKey(container?.last_order_key ?? null) });
        return;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
    throw new Error(`collection artifact ${head._id} kept conflicting`);
  }

  private source(commit: CommitDoc, v: VersionDoc): ArtifactDoc['provenance']['source'] {
    return { kind: 'commit', commit_id: commit._id, derived_from: v.provenance.source_artifact_id!, ...(commit.decision ? { approved_by: commit.decision.by } : {}) };
  }

  /** The draft's embedding carries over when it was of exactly the committed text. */
  private searchOf(v: VersionDoc, search: ArtifactDoc['search'] | undefined): Pick<ArtifactDoc, 'search'> {
    return search ? { search: { ...search, revision: v.version } } : {};
  }

  private newHead(commit: CommitDoc, v: VersionDoc, orderKey: string, search: ArtifactDoc['search'] | undefined): ArtifactDoc {
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
      provenance: { created_by: v.provenance.drafted_by, created_at: now, updated_by: v.provenance.last_edited_by, updated_at: now, source: this.source(commit, v) },
      ...this.searchOf(v, search),
    };
  }

  private headUpdate(commit: CommitDoc, v: VersionDoc, search: ArtifactDoc['search'] | undefined) {
    const carried = this.searchOf(v, search);
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
        'provenance.source': this.source(commit, v),
        ...carried,
      },
      ...(carried.search ? {} : { $unset: { search: '' as const } }),
    };
  }
}

/** Inserts every document it can; returns the positions of those refused as duplicates. */
async function insertEach<T extends { _id: string }>(coll: import('mongodb').Collection<T>, docs: T[]): Promise<Set<number>> {
  if (docs.length === 0) return new Set();
  try {
    await coll.insertMany(docs as never[], { ordered: false });
    return new Set();
  } catch (err) {
    const errors = (err as { writeErrors?: { index: number; code: number }[] | { index: number; code: number } }).writeErrors;
    const list = Array.isArray(errors) ? errors : errors ? [errors] : [];
    if (list.length === 0 || list.some((e) => e.code !== 11000)) throw err;
    return new Set(list.map((e) => e.index));
  }
}
