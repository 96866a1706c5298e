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
}
