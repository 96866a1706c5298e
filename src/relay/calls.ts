import { setTimeout as sleep } from 'node:timers/promises';
import type { CallOp } from '../relay-protocol/wire.js';
import type { RelayCallDoc, RelayResultDoc, RelayStore } from '../store/relay.js';
import { CallFailed, type CallFailure } from '../mcp-client/failure.js';

/**
 * A relay not heard from for this long is offline: its taken calls are lost, new ones are refused at
 * once. Longer than a relay takes to notice a silently dropped poll (its deadline: 20 s + 15 s) and
 * reconnect (backoff capped at 15 s), so a network blip never costs a healthy relay its calls.
 */
export const relayOfflineAfterMs = 90_000;

export interface RelayedCall {
  /** The asking activity across its attempts (`<workflow id>/<run id>/<activity id>`), and this attempt. */
  lineage: string;
  attempt: number;
  hostId: string;
  hostTitle: string;
  serverId: string;
  revision: number;
  secretsOwner: string;
  op: CallOp;
  params: Record<string, unknown>;
  timeoutMs: number;
  maxTotalMs: number;
  signal?: AbortSignal;
  /** Whether the signal's abort is a cancellation someone asked for (else the worker is stopping, or the attempt timed out). */
  cancelRequested?: () => boolean;
  onProgress?: (p: { progress: number; total?: number }) => void;
}

/**
 * The activity's side of a call to a host's relay (docs/decisions.md, "Desktop host relay"): it
 * records the call in the store, where the relay's poll (through any API replica) takes it, and waits
 * for its one result, heartbeating meanwhile (the caller's `heartbeating`). A retried activity adopts
 * its earlier attempt's call rather than sending it again, so a worker restart mid-call neither loses
 * the answer nor runs the tool twice; a relay that restarts or stays away mid-call has its call
 * failed as lost, never re-run. Every decision is a unique insert of the call's result.
 */
export class RelayedCalls {
  constructor(
    private readonly store: RelayStore,
    private readonly options: { pollMs?: number; offlineAfterMs?: number } = {},
  ) {}

  private get offlineAfterMs() {
    return this.options.offlineAfterMs ?? relayOfflineAfterMs;
  }

  async call(input: RelayedCall): Promise<Record<string, unknown>> {
    const earlier = (await this.store.lineage(input.lineage)).find((c) => c.attempt <= input.attempt);
    if (earlier) {
      const decided = await this.store.getResult(earlier._id);
      // Decided already: answered exactly once, whatever attempt asks now. A failure worth retrying is asked again.
      if (!decided) return this.wait(earlier, input);
      if (!(decided.outcome === 'failure' && decided.failure?.retryable)) return outcome(decided, input);
    }
    const host = await this.store.getHost(input.hostId);
    if (!host || Date.now() - host.last_seen.getTime() > this.offlineAfterMs)
      throw offline(input, host ? `was last seen ${host.last_seen.toISOString()}` : 'has never connected');
    const now = new Date();
    const doc: RelayCallDoc = {
      _id: `${input.lineage}#${input.attempt}`,
      lineage: input.lineage,
      attempt: input.attempt,
      host_id: input.hostId,
      server_id: input.serverId,
      revision: input.revision,
      op: input.op,
      params: input.params,
      secrets_owner: input.secretsOwner,
      timeout_ms: input.timeoutMs,
      created_at: now,
      deadline_at: new Date(now.getTime() + input.maxTotalMs),
      pending: true,
    };
    if (!(await this.store.addCall(doc))) return this.wait((await this.store.getCall(doc._id)) ?? doc, input);
    return this.wait(doc, input);
  }

  /** Waits for the call's result, deciding it when no answer can come: cancelled, past its deadline, or its relay gone. */
  private async wait(call: RelayCallDoc, input: RelayedCall): Promise<Record<string, unknown>> {
    // The answer is read at growing intervals, 10 ms up to 200: a quick tool's answer is taken at once,
    // a slow one costs a read every 200 ms (bench/relay.ts measured the fixed 200 ms as half a relayed call's overhead).
    const pollMs = this.options.pollMs ?? 200;
    let delay = Math.min(10, pollMs);
    const decide = async (outcome: RelayResultDoc['outcome']) => {
      await this.store.decide({ _id: call._id, host_id: call.host_id, outcome, at: new Date() });
      return (await this.store.getResult(call._id))!;
    };
    let checked = 0;
    let lastProgress = -1;
    for (;;) {
      const decided = await this.store.getResult(call._id);
      if (decided) return outcome(decided, input);
      if (input.signal?.aborted) {
        // A worker that stops (or an attempt that timed out) leaves the call running: the next attempt adopts it.
        if (!input.cancelRequested?.()) throw input.signal.reason ?? new Error('aborted');
        const result = await decide('cancelled');
        if (result.outcome === 'cancelled') throw input.signal.reason ?? new Error('cancelled');
        return outcome(result, input);
      }
      if (Date.now() >= call.deadline_at.getTime()) return outcome(await decide('timeout'), input);
      if (Date.now() - checked >= 1000) {
        checked = Date.now();
        const [claim, host, progress] = await Promise.all([
          this.store.getClaim(call._id),
          this.store.getHost(call.host_id),
          this.store.getProgress(call._id),
        ]);
        const away = !host || Date.now() - host.last_seen.getTime() > this.offlineAfterMs;
        // Taken by a session that is no longer the host's (the relay restarted), or by a relay that went quiet: lost.
        if (claim && (away || host.session !== claim.session)) return outcome(await decide('lost'), input);
        if (!claim && away) return outcome(await decide('unavailable'), input);
        if (progress?.progress !== undefined && progress.progress !== lastProgress) {
          lastProgress = progress.progress;
          input.onProgress?.({ progress: progress.progress, ...(progress.total !== undefined ? { total: progress.total } : {}) });
        }
      }
      await sleep(delay, undefined, { signal: input.signal }).catch(() => undefined);
      delay = Math.min(delay * 2, pollMs);
    }
  }
}

function offline(input: RelayedCall, why: string): CallFailed {
  return new CallFailed({
    retryable: false,
    kind: 'relay_offline',
    message: `The relay on host "${input.hostTitle}" (${input.hostId}) is not connected: it ${why}. Start it on that machine (README, "Run MCP servers on your own machine") and call again.`,
  });
}

/** A decided call as the caller sees it: the relay's result, or a failure that says what happened. */
function outcome(doc: RelayResultDoc, input: RelayedCall): Record<string, unknown> {
  const host = `host "${input.hostTitle}" (${input.hostId})`;
  const fail = (failure: CallFailure): never => {
    throw new CallFailed(failure);
  };
  switch (doc.outcome) {
    case 'result':
      return doc.result ?? {};
    case 'failure': {
      const f = doc.failure ?? { kind: 'protocol', message: 'The relay answered a failure without a message.', retryable: false };
      const kind: CallFailure['kind'] =
        f.kind === 'refused' ? 'refused' : f.kind === 'timeout' ? 'timeout' : f.retryable ? 'unavailable' : 'protocol';
      const prefix = f.kind === 'refused' ? `The relay on ${host} refused the call by its local policy: ` : `On ${host}: `;
      return fail({ retryable: f.retryable, kind, message: prefix + f.message });
    }
    case 'lost':
      return fail({
        retryable: false,
        kind: 'relay_lost',
        message: `The relay on ${host} stopped while it ran the call (it restarted, or was away longer than ${Math.round(relayOfflineAfterMs / 1000)} s). The tool may have run; the call is not repeated.`,
      });
    case 'unavailable':
      return fail({
        retryable: false,
        kind: 'relay_offline',
        message: `The relay on ${host} went away before it took the call; nothing ran. Start it again and call again.`,
      });
    case 'timeout':
      return fail({ retryable: false, kind: 'timeout', message: `The call on ${host} did not finish in time.` });
    case 'cancelled':
      return fail({ retryable: false, kind: 'protocol', message: `The call on ${host} was cancelled.` });
  }
}
