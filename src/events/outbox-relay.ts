// The relay of issue #21: moves events from the outbox (the revision claims, store/revisions.ts) to
// the workspace's event workflow. Two paths hand on the same events: the write's own fast path, right
// after it, and the sweeper, for what a crash or a refused signal left behind. Both are idempotent:
// the workflow and the event store deduplicate by event id, and marking a claim relayed is a field set.
import type { Db } from 'mongodb';
import { outbox, type RevisionDoc } from '../store/revisions.js';
import type { WorkspaceEvent } from './types.js';

/** Hands a workspace's events to its event workflow (signal-with-start); resolves once Temporal accepted them. */
export type DeliverEvents = (workspaceId: string, events: WorkspaceEvent[]) => Promise<void>;

export interface RelayOptions {
  /** How long an event may wait for its fast path before the sweeper takes it. */
  graceMs: number;
  /** At most this many claims per sweep, and events per signal. */
  sweepLimit: number;
  signalBatch: number;
}

export const defaultRelayOptions: RelayOptions = { graceMs: 5_000, sweepLimit: 500, signalBatch: 100 };

export class OutboxRelay {
  constructor(
    private readonly db: Db,
    private readonly deliver: DeliverEvents,
    private readonly options: RelayOptions = defaultRelayOptions,
    /**
     * Whether a workspace's event run has more queued than it should take now (a bulk import's
     * backlog, issue #33): the sweeper leaves that workspace's events for a later sweep.
     */
    private readonly busy?: (workspaceId: string) => Promise<boolean>,
  ) {}

  get sweepLimit(): number {
    return this.options.sweepLimit;
  }

  /**
   * The fast path: the event of one write (the draft's claim on `revision`), handed on now if it still
   * waits. Anything else left waiting (a claim at another revision, a crash) is the sweeper's.
   */
  relayClaim(artifactId: string, revision: number): Promise<number> {
    return this.relayClaims([{ artifactId, revision }]);
  }

  /**
   * The fast path for many writes at once (the API's, behind the requests: workflow-clients/events.ts): the
   * claims whose event still waits, read by `_id` each, then relayed together (one signal per workspace).
   */
  async relayClaims(claims: { artifactId: string; revision: number }[]): Promise<number> {
    const found = await Promise.all(claims.map((c) => outbox.waiting(this.db, c.artifactId, c.revision)));
    return this.relay(found.filter((c): c is RevisionDoc => c !== null));
  }

  /**
   * The fast path for claims the caller has just inserted (a bulk import's batch): relayed as they
   * are, without reading them back. Claims already relayed are harmless: delivery dedupes by event id.
   */
  relayInserted(claims: RevisionDoc[]): Promise<number> {
    return this.relay(claims);
  }

  /** One sweep: every event that waited longer than the grace, oldest first, up to the limit. Returns how many. */
  async sweep(now = new Date()): Promise<number> {
    const due = await outbox.due(this.db, new Date(now.getTime() - this.options.graceMs), this.options.sweepLimit);
    return this.relay(due, true);
  }

  /** Groups by workspace, keeps each workspace's claim order, signals in batches, then marks what was accepted. */
  private async relay(claims: RevisionDoc[], sweeping = false): Promise<number> {
    const byWorkspace = new Map<string, RevisionDoc[]>();
    for (const claim of claims) {
      if (!claim.event) continue;
      const list = byWorkspace.get(claim.event.workspace_id) ?? [];
      list.push(claim);
      byWorkspace.set(claim.event.workspace_id, list);
    }
    let relayed = 0;
    const failures: unknown[] = [];
    await Promise.all(
      [...byWorkspace].map(async ([workspaceId, list]) => {
        // In event-id order (the claim time), so a workspace's events reach the workflow in write order.
        list.sort((a, b) => (a.event!.id < b.event!.id ? -1 : a.event!.id > b.event!.id ? 1 : 0));
        try {
          if (sweeping && this.busy && (await this.busy(workspaceId))) return; // caught up later: a sweep must not flood it
          for (let i = 0; i < list.length; i += this.options.signalBatch) {
            const chunk = list.slice(i, i + this.options.signalBatch);
            await this.deliver(
              workspaceId,
              chunk.map((c) => c.event!),
            );
            await outbox.markRelayed(
              this.db,
              chunk.map((c) => c._id),
              new Date(),
            );
            relayed += chunk.length;
          }
        } catch (err) {
          failures.push(err); // this workspace's rest waits for the next sweep; the others go on
        }
      }),
    );
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} workspace(s) not relayed; the sweeper retries them`);
    return relayed;
  }
}

export interface SweeperLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * Runs the sweeper every `intervalMs` until stopped: one sweep at a time, each bounded by the store's
 * and the client's own deadlines. A failed sweep is logged and tried again at the next tick.
 */
export function startSweeper(relay: OutboxRelay, intervalMs: number, log: SweeperLog): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = (async () => {
      try {
        // A full sweep means more may be due: go on at once rather than a tick later.
        for (;;) {
          const n = await relay.sweep();
          if (n > 0) log.info({ relayed: n }, 'event sweeper relayed waiting events');
          if (n < relay.sweepLimit || stopped) break;
        }
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'event sweep failed; retried at the next tick');
      }
      if (!stopped) timer = setTimeout(tick, intervalMs);
    })();
  };
  timer = setTimeout(tick, intervalMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
