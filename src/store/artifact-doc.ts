import type { ActorKind } from '../identity/principal.js';
import type { Binary } from 'mongodb';
import type { ContainerKind } from './containers.js';

/** An artifact as stored in `artifacts`: drafts in workspaces, current versions in collections. */
export interface ArtifactDoc {
  _id: string;
  title: string;
  content_type: string;
  content: string;
  context: Record<string, unknown>;
  collection_id: string;
  container_kind: ContainerKind;
  /** Lexicographic base-62 fractional index key: artifacts of a container sort by it. */
  order_key: string;
  /** Incremented on every update of a draft; for a collection artifact, equal to its version. */
  revision: number;
  /** Collection artifacts only: the current version (earlier ones are in artifact_versions). */
  version?: number;
  /** Workspace drafts only: set while archived (hidden from search and from a commit's default selection). */
  archived_at?: Date;
  provenance: Provenance;
  /**
   * Collection artifacts of a type whose content-type server implements `extract_text` (§4.6): the
   * plain text it returned for this version, which search indexes instead of the raw content.
   */
  search_text?: {
    revision: number;
    text: string;
    /**
     * The sha256 (hex) of the content the text was extracted from (an imported PDF): the text stands
     * for the content at any revision that leaves the content as it was (a retitled PDF keeps its text).
     */
    content_sha256?: string;
  };
  /**
   * Whose stored secrets the content references: the person who last wrote the content (each such
   * write checks that they own them). Unset until the content is first changed: then the creator.
   */
  secrets_owner?: string;
  /**
   * The embedding of this revision's text, written by the indexing activity. The vector is BSON
   * binary (float32, subtype 9), which Atlas Vector Search indexes and FerretDB reads ten times faster
   * than an array of doubles (docs/decisions.md); older documents may still hold a number array.
   */
  search?: { embedder: string; content_hash: string; vector: Binary | number[]; revision: number; embedded_at: Date };
}

export interface Provenance {
  created_by: string;
  created_at: Date;
  updated_by: string;
  updated_at: Date;
  /** Where the content came from: the channel and, when known, the request or artifact behind it. */
  source: {
    kind: 'api' | 'mcp' | 'agent' | 'commit' | 'import' | 'stream';
    request_id?: string;
    /** For a draft a bulk import made (issue #33): the import. */
    import_id?: string;
    /** For media a stream's session recorded (issue #36): the stream and the session. */
    stream_id?: string;
    session_id?: string;
    /** For a change an agent proposed: the invocation that applied it, the action, and the agent. */
    invocation_id?: string;
    action_id?: string;
    agent?: string;
    derived_from?: string;
    /** For a collection artifact: the commit that wrote this version, and who approved it. */
    commit_id?: string;
    approved_by?: string;
    /** A write an automation's run made (issue #21): the automation, its depth (the loop guard's count) and the event that started it. */
    automation?: { id: string; depth: number; event_id: string };
    /** A content-type server's lifecycle call that made the change (its run is `invocation_id`): `on_create` enrichment. */
    lifecycle?: 'on_create';
    /** The credential that made the change when it was not the person's own token. */
    via?: { kind: Exclude<ActorKind, 'user'>; id: string };
  };
}
