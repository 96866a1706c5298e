import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import type { ArtifactWrite } from '../artifacts/after-write.js';
import { OutboxRelay, defaultRelayOptions, type RelayOptions } from '../events/outbox-relay.js';
import { RunKind, WorkspaceId } from '../temporal/search-attributes.js';
import {
  artifactEventsSignal,
  pendingEventsQuery,
  workspaceEventsType,
  type WorkspaceEvents,
} from '../workflows/contracts/workspace-events.js';
import type { RevisionDoc } from '../store/revisions.js';
import type { WorkspaceEvent } from '../events/types.js';
import { eventsWorkflowId } from '../workflows/contracts/ids.js';
import { within } from '../temporal/within.js';

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

/**
 * A paced relay (bulk writes) hands a batch on only while its workspace's event run holds fewer than
 * this many events not yet recorded: the run carries them over continue-as-new in one payload, which
 * must stay well under Temporal's 2 MB limit (an event is about 0.4 KB), and consumers keep up.
 */
const pacedQueueLimit = 1_000;
/** How long a paced relay waits for the event run to catch up before it relays anyway (the sweeper has whatever fails). */
const pacedWaitMs = 60_000;
/** Events a paced writer may leave waiting behind it in this process before it waits for them. */
const pacedBehindLimit = 20_000;

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

  /** Per workspace, the paced relays queued in this process (relayPaced): the last one, and the events still waiting. */
  private readonly paced = new Map<string, { tail: Promise<void>; waiting: number }>();

  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly continueAsNewAfter: number,
    private readonly outbox?: OutboxOptions,
  ) {
    if (outbox)
      this.relay = new OutboxRelay(
        outbox.db,
        (ws, events) => this.deliver(ws, events),
        outbox.relay ?? defaultRelayOptions,
        (ws) => this.backlogged(ws),
      );
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

  /**
   * The fast path for a bulk writer's batch (an import): its claims' events are relayed behind the
   * writes, one batch after another per workspace, each once the workspace's event run has caught up
   * below `pacedQueueLimit`, so a burst of writes never floods the run (an event storm would starve
   * automations and subscriptions, and its carried-over queue outgrow Temporal's payload limit). The
   * writer goes on at once, unless more than `pacedBehindLimit` events already wait behind it: then it
   * waits for them, which bounds this process's memory. A relay that fails is reported to `onError`;
   * its events stay in the outbox for the sweeper.
   */
  async relayPaced(workspaceId: string, claims: RevisionDoc[], onError: (err: unknown) => void): Promise<void> {
    if (!this.relay) throw new Error('EventWorkflows: no outbox to relay from');
    const relay = this.relay;
    const slim = claims.map((c) => ({ _id: c._id, event: c.event }) as RevisionDoc); // not their content
    const line = this.paced.get(workspaceId) ?? { tail: Promise.resolve(), waiting: 0 };
    this.paced.set(workspaceId, line);
    const before = line.tail;
    line.waiting += slim.length;
    const run: Promise<void> = before
      .then(async () => {
        await this.caughtUp(workspaceId);
        await relay.relayInserted(slim);
      })
      .catch(onError)
      .finally(() => {
        line.waiting -= slim.length;
        if (line.tail === run) this.paced.delete(workspaceId);
      });
    line.tail = run;
    if (line.waiting > pacedBehindLimit) await before;
  }

  /** Waits (up to pacedWaitMs) until the workspace's event run holds fewer than pacedQueueLimit events. */
  private async caughtUp(workspaceId: string): Promise<void> {
    const until = Date.now() + pacedWaitMs;
    while (Date.now() < until && (await this.backlogged(workspaceId))) await new Promise((r) => setTimeout(r, 250));
  }

  /** Whether the workspace's event run holds pacedQueueLimit events or more (not started, or no answer within 5 s: no). */
  private async backlogged(workspaceId: string): Promise<boolean> {
    const handle = this.client.workflow.getHandle(eventsWorkflowId(workspaceId));
    const pending = await within(handle.query(pendingEventsQuery), 5_000).catch(() => null);
    return pending !== null && pending.value >= pacedQueueLimit;
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
