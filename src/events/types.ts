/** Artifact lifecycle events of SPEC §6, delivered to the per-workspace event workflow. */
export const eventKinds = ['artifact_created', 'artifact_updated', 'artifact_deleted'] as const;
export type EventKind = (typeof eventKinds)[number];

export interface WorkspaceEvent {
  /** UUIDv7, chosen by the emitter: recording is idempotent on it, and it sorts by time. */
  id: string;
  kind: EventKind;
  workspace_id: string;
  artifact_id: string;
  /** Person who caused it (JWT `sub`). */
  actor: string;
  occurred_at: string;
  /** Artifact fields that changed, for artifact_updated. */
  changed?: string[];
  /** The artifact's content type and the revision the write made (issue #21; filled by the outbox). */
  content_type?: string;
  revision?: number;
  /** Where the write came from (the artifact's provenance source: api, invocation, automation…). */
  source?: Record<string, unknown>;
  /** How many automation runs led to this write: 0 for a person's or agent's own write (the loop guard). */
  depth?: number;
}

/** An event as recorded: `seq` orders a workspace's events (1, 2, 3… in the order they were recorded). */
export interface RecordedEvent extends WorkspaceEvent {
  seq: number;
}
