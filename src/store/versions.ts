import type { Db } from 'mongodb';
import type { ArtifactDoc } from './artifact-doc.js';
import { pageByNumber, type Page } from './pagination.js';

/** Who and what stand behind one version: kept forever with it. */
export interface VersionProvenance {
  /** The person who wrote the draft's first revision, and the last person who changed it. */
  drafted_by: string;
  last_edited_by: string;
  /** Null for an artifact created directly in a collection (its version 1). */
  commit_id: string | null;
  requested_by: string;
  approved_by: string | null;
  source_artifact_id: string | null;
  source_revision: number | null;
  committed_at: Date;
}

/** One immutable version of a collection artifact (`_id` `<artifact id>:<version>`). */
export interface VersionDoc {
  _id: string;
  artifact_id: string;
  collection_id: string;
  version: number;
  title: string;
  content_type: string;
  content: string;
  context: Record<string, unknown>;
  provenance: VersionProvenance;
}

export const versionId = (artifactId: string, version: number) => `${artifactId}:${version}`;

export function versionsCollection(db: Db) {
  return db.collection<VersionDoc>('artifact_versions');
}

/** Version 1 of an artifact written straight into a collection: nobody reviewed it but its author. */
export function initialVersion(doc: ArtifactDoc): VersionDoc {
  const p = doc.provenance;
  return {
    _id: versionId(doc._id, 1),
    artifact_id: doc._id,
    collection_id: doc.collection_id,
    version: 1,
    title: doc.title,
    content_type: doc.content_type,
    content: doc.content,
    context: doc.context,
    provenance: {
      drafted_by: p.created_by,
      last_edited_by: p.updated_by,
      commit_id: null,
      requested_by: p.created_by,
      approved_by: null,
      source_artifact_id: null,
      source_revision: null,
      committed_at: p.created_at,
    },
  };
}

/** Reads of versions. Writes happen in the commit apply activity (src/commits/apply.ts). */
export class VersionStore {
  constructor(private readonly db: Db) {}

  /** Oldest first, so that `version` and position agree. */
  list(artifactId: string, limit: number, cursor?: string): Promise<Page<VersionDoc>> {
    return pageByNumber(versionsCollection(this.db), { artifact_id: artifactId }, 'version', limit, cursor);
  }

  /** The version a draft last became, in one of the given collections: what revert restores. */
  lastFrom(draftId: string, collectionIds: string[]): Promise<VersionDoc | null> {
    return versionsCollection(this.db)
      .find({ 'provenance.source_artifact_id': draftId, collection_id: { $in: collectionIds } })
      .sort({ 'provenance.committed_at': -1 })
      .limit(1)
      .next();
  }

  get(artifactId: string, version: number): Promise<VersionDoc | null> {
    return versionsCollection(this.db).findOne({ _id: versionId(artifactId, version) });
  }
}
