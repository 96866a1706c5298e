import type { EventKind } from '../events/types.js';
import type { ArtifactDoc } from '../store/artifacts.js';

/** One artifact write, as what follows it needs to know it. */
export interface ArtifactWrite {
  kind: EventKind;
  doc: ArtifactDoc;
  /** Who wrote it: the event's actor. */
  actor: string;
  /** The fields an update changed. */
  changed?: string[];
}

/** What follows a write, as each process has it (the API's in-memory index, or a worker's change record). */
export interface AfterWriteSteps {
  /** Keeps search current: indexes (or unindexes) the artifact, and starts the embedding of a new revision. */
  index(write: ArtifactWrite): Promise<unknown>;
  /**
   * Hands the workspace event on (SPEC §6.1). A draft's write recorded its event in its revision
   * claim (the outbox, issue #21): this is the relay's fast path, and the sweeper relays whatever it
   * leaves behind. A move has no claim: its event is published here directly.
   */
  publish(write: ArtifactWrite): Promise<unknown>;
  /**
   * A registered MCP server's catalog refresh. Only the API has it: agents cannot write platform types
   * (their actions are refused). A new artifact's `on_create` (SPEC §4.6) comes before its write
   * (operations/on-create.ts), and is not called for an agent's draft (docs/decisions.md).
   */
  mcp?(write: ArtifactWrite): Promise<unknown>;
}

/**
 * What follows every artifact write, in one place: search, the workspace event, and the MCP catalog
 * or lifecycle. A move (only `order_key` changed) is neither reindexed nor a lifecycle event.
 * Collection artifacts have no events: a commit reports its own outcome.
 *
 * `failures`: the write has happened by now. An API request cannot redo what failed, so it logs
 * it (docs/decisions.md; the event is still in the outbox, and the sweeper relays it); an activity
 * throws, and Temporal's retry does it again (the event id is the claim's, so nothing is reported twice).
 */
export async function afterWrite(
  steps: AfterWriteSteps,
  write: ArtifactWrite,
  failures: { log(what: string, err: unknown): void } | 'throw',
): Promise<void> {
  const moved = write.changed?.join() === 'order_key';
  const todo: [string, () => Promise<unknown>][] = [];
  if (!moved || write.kind === 'artifact_deleted') todo.push(['search index', () => steps.index(write)]);
  if (write.doc.container_kind === 'workspace') {
    todo.push(['event', () => steps.publish(write)]);
    if (!moved && steps.mcp) todo.push(['MCP catalog or lifecycle', () => steps.mcp!(write)]);
  }
  const outcomes = await Promise.allSettled(todo.map(([, step]) => step()));
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'fulfilled') return;
    if (failures === 'throw') throw outcome.reason;
    failures.log(todo[i]![0], outcome.reason);
  });
}
