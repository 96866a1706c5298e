// One listen stream's following of its containers: a change is told only to a caller who may still
// read the container (looked up again before each notification, so a revoked share stops them at
// once), the credentials are resolved again now and then (a revoked key, a signed-out session ends
// the stream), and the stream has a lifetime (a token's at most), after which the client listens again.
import type { Principal } from '../../identity/principal.js';
import type { OperationContext } from '../../operations/services.js';
import { isStorageUnavailable, withDeadline } from '../../store/deadline.js';
import type { Target } from './targets.js';
import { containerWatches, watchTiming } from './watch.js';

export const followTiming = {
  /** The credentials and every followed container's access are checked again this often. */
  accessCheckMs: 30_000,
  /** A notification whose access check found no storage is tried again after this long. */
  retryMs: 1000,
};

/** Why the server ended a stream (the client leaving ends it too, without a reason to give). */
export type EndReason = { kind: 'access'; uri: string } | { kind: 'credentials' } | { kind: 'lifetime' } | { kind: 'shutdown' };

export interface FollowOptions {
  /** The request's credentials resolved again: null once they no longer hold. */
  reauthenticate?: () => Promise<Principal | null>;
  /** Ends the stream: called at most once. */
  end: (reason: EndReason) => void;
  /** When the stream ends by itself. */
  lifetimeMs: number;
}

export class Follower {
  private principal: Principal;
  private readonly pending = new Set<Target>();
  private draining = false;
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly unfollow: (() => void)[] = [];

  constructor(
    private readonly ctx: OperationContext,
    private readonly targets: Target[],
    private readonly options: FollowOptions,
  ) {
    this.principal = ctx.state.principal;
  }

  /** Starts following; `emit` gets the URI of each change. Returns the stop (idempotent). */
  start(emit: (uri: string) => void): () => void {
    const watches = containerWatches(this.ctx.services);
    for (const target of this.targets)
      this.unfollow.push(
        watches.follow(target.kind, target.id, () => {
          this.pending.add(target);
          this.kick(emit);
        }),
      );
    this.every(followTiming.accessCheckMs, () => this.recheck());
    this.after(this.options.lifetimeMs, () => this.finish({ kind: 'lifetime' }));
    return () => this.stop();
  }

  /** Lets go of the watches and timers (idempotent): the stream's end, however it came. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const undo of this.unfollow.splice(0)) undo();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.pending.clear();
  }

  private finish(reason: EndReason): void {
    if (this.stopped) return;
    this.stop();
    this.options.end(reason);
  }

  /** Tells of each pending change the caller may still see, one at a time. */
  private async drain(emit: (uri: string) => void): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      for (const target of this.pending) {
        if (this.stopped) return;
        this.pending.delete(target);
        const visible = await this.visible(target);
        if (this.stopped) return;
        if (visible === undefined) {
          // No storage to check with: told later rather than told unchecked.
          this.after(followTiming.retryMs, () => {
            this.pending.add(target);
            this.kick(emit);
          });
        } else if (!visible) return this.finish({ kind: 'access', uri: target.uri });
        else emit(target.uri);
      }
    } finally {
      this.draining = false;
    }
    if (this.pending.size > 0 && !this.stopped) this.kick(emit);
  }

  private kick(emit: (uri: string) => void): void {
    void this.drain(emit).catch((err) => {
      this.ctx.services.logger.error({ err, request_id: this.ctx.state.requestId }, 'listen notification failed');
    });
  }

  /** Whether the caller, as the credentials are now, still reads the container; undefined: storage did not answer. */
  private async visible(target: Target): Promise<boolean | undefined> {
    if (!this.principal.scopes.allows('artifact:read')) return false;
    try {
      const doc = await withDeadline(
        'listen access check',
        this.ctx.services.containers.get(target.kind, this.principal, target.id),
        watchTiming.storeDeadlineMs,
      );
      return doc !== null;
    } catch (err) {
      if (!isStorageUnavailable(err)) throw err;
      return undefined;
    }
  }

  /** The credentials resolved again, then every container's access: a loss ends the stream. */
  private async recheck(): Promise<void> {
    try {
      if (this.options.reauthenticate) {
        const principal = await withDeadline('listen credentials check', this.options.reauthenticate(), watchTiming.storeDeadlineMs);
        if (this.stopped) return;
        if (!principal) return this.finish({ kind: 'credentials' });
        this.principal = principal;
      }
      for (const target of this.targets) {
        const visible = await this.visible(target);
        if (this.stopped) return;
        if (visible === false) return this.finish({ kind: 'access', uri: target.uri });
      }
    } catch (err) {
      if (isStorageUnavailable(err)) return; // the next check tries again
      this.ctx.services.logger.error({ err, request_id: this.ctx.state.requestId }, 'listen access check failed');
    }
  }

  private after(ms: number, run: () => void): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.stopped) run();
    }, ms);
    this.timers.add(timer);
  }

  private every(ms: number, run: () => Promise<void>): void {
    this.after(ms, () => {
      void run().finally(() => this.every(ms, run));
    });
  }
}
