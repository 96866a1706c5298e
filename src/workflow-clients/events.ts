import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import type { ArtifactWrite } from '../artifacts/after-write.js';
import { OutboxRelay, defaultRelayOptions, type RelayOptions } from '../events/outbox-relay.js';
import { RunKind, WorkspaceId } from '../temporal/search-attributes.js';
import { artifactEventsSignal, workspaceEventsType, type WorkspaceEvents } from '../workflows/contracts/workspace-events.js';
import type { WorkspaceEvent } from '../events/types.js';
import { eventsWorkflowId } from '../workflows/contracts/ids.js';

/** Deadline of one signal-with-start: a relay that cannot hand on in time leaves the event to the sweeper. */
const signalDeadlineMs = 10_000;

export interface OutboxOptions {
  db: Db;
  /** The fast path right after a write (EVENT_RELAY_INLINE); off, the sweeper alone relays. */
  inline: boolean;
  relay?: RelayOptions;
  /**
   * The fast path runs behind the write instead of within it (the API: a request does not wait for
   * Temporal): writes queue their claims, and one drain at a time relays what has queued, together.
   * `onError` hears of a drain that failed (the sweeper relays those events).
   */
  background?: { onError(err: unknown): void };
}

/** At most this many claims wait for the background fast path; past it, a write's event is the sweeper's. */
const backgroundQueueLimit = 10_000;
/** Claims per background drain round. */
const backgroundBatch = 200;

/**
 * Delivers a workspace's events to its event workflow, starting it on first use. A draft's write
 * recorded its event in its revision claim (the outbox); `publishWrite` relays it (the fast path).
 */
export class EventWorkflows {
  readonly relay?: OutboxRelay;
  private queued: { artifactId: string; revision: number }[] = [];
  private draining: Promise<void> | null = null;

  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly continueAsNewAfter: number,
    private readonly outbox?: OutboxOptions,
  ) {
    if (outbox) this.relay = new OutboxRelay(outbox.db, (ws, events) => this.deliver(ws, events), outbox.relay ?? defaultRelayOptions);
  }

  /** Signals a batch of one workspace's events (in order); resolves once Temporal has accepted it. */
  async deliver(workspaceId: string, events: WorkspaceEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.client.withDeadline(Date.now() + signalDeadlineMs, () =>
      this.client.workflow.signalWithStart<WorkspaceEvents, [WorkspaceEvent[]]>(workspaceEventsType, {
        workflowId: eventsWorkflowId(workspaceId),
        taskQueue: this.taskQueue,
        args: [{ workspaceId, continueAsNewAfter: this.continueAsNewAfter }],
        signal: artifactEventsSignal,
        signalArgs: [events],
        typedSearchAttributes: [
          { key: WorkspaceId, value: workspaceId },
          { key: RunKind, value: 'workspace-events' },
        ],
      }),
    );
  }

  /**
   * What follows a write (artifacts/after-write.ts): a draft's write relays the event its claim holds
   * (unless the fast path is off: then the sweeper does). A move changes no revision and has no claim:
   * its event is published directly (docs/decisions.md).
   */
  async publishWrite(write: ArtifactWrite): Promise<void> {
    if (write.kind === 'artifact_updated' && write.changed?.join() === 'order_key') {
      const { doc } = write;
      await this.publish(write.kind, doc.collection_id, doc._id, write.actor, write.changed, {
        content_type: doc.content_type,
        revision: doc.revision,
      });
      return;
    }
    if (!this.relay) throw new Error('EventWorkflows: no outbox to relay from');
    if (!this.outbox!.inline) return;
    // A delete's claim is the revision after the draft as it was read before it (a blind delete that
    // raced another write claimed a later one: the sweeper relays that).
    const revision = write.kind === 'artifact_deleted' ? write.doc.revision + 1 : write.doc.revision;
    if (!this.outbox!.background) {
      await this.relay.relayClaim(write.doc._id, revision);
      return;
    }
    if (this.queued.length < backgroundQueueLimit) this.queued.push({ artifactId: write.doc._id, revision });
    this.draining ??= this.drain();
  }

  /** Relays what has queued, round after round, until nothing is left (one drain at a time). */
  private async drain(): Promise<void> {
    try {
      while (this.queued.length > 0) {
        const batch = this.queued.splice(0, backgroundBatch);
        try {
          await this.relay!.relayClaims(batch);
        } catch (err) {
          this.outbox!.background!.onError(err); // still in the outbox: the sweeper relays them
        }
      }
    } finally {
      this.draining = null;
    }
  }

  /** Resolves once the background fast path has relayed (or failed to relay) everything queued so far: shutdown waits for it. */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** An event with no claim behind it (a move): signalled directly, once. */
  async publish(
    kind: WorkspaceEvent['kind'],
    workspaceId: string,
    artifactId: string,
    actor: string,
    changed?: string[],
    about: Pick<WorkspaceEvent, 'content_type' | 'revision'> = {},
  ): Promise<WorkspaceEvent> {
    const event: WorkspaceEvent = {
      id: uuidv7(),
      kind,
      workspace_id: workspaceId,
      artifact_id: artifactId,
      actor,
      occurred_at: new Date().toISOString(),
      ...(changed ? { changed } : {}),
      ...about,
      depth: 0,
    };
    await this.deliver(workspaceId, [event]);
    return event;
  }
}
