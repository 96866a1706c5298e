/**
 * The OAuth token refresh timer of `connectionFlow` (workflow code, run in its sandbox): when a refresh
 * is due, and the single-flight refresh the timer and on-demand projections share. The flow's main loop
 * sleeps until `refreshAt` and calls `refreshTokens` once `refreshDue` says so.
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { type ConnectionFlowState, connectionGone, type TokenState } from './contracts/connection-flow.js';

/** The part of the flow's state the timer reads and writes: one object, shared with the flow's loop. */
export interface RefreshTimer {
  tokens: TokenState | undefined;
  refreshAt: number | undefined;
  refreshing: Promise<void> | undefined;
  /** Set to wake the flow's main loop, which then decides what follows. */
  wake: boolean;
}

/** What the refresh activity answers: new token state, or why there is none. */
export type RefreshOutcome = TokenState | { status: 'needs_reconsent' | 'gone' };

/** How long before expiry a refresh is due: a minute (SPEC §8's buffer), or a third of a short token's life. */
export function refreshLeadMs(lifetimeMs: number): number {
  return Math.min(60_000, lifetimeMs / 3);
}

/** Sets when the next refresh is due from the current tokens, and shows it in the query state. */
export function scheduleRefresh(timer: RefreshTimer, state: ConnectionFlowState): void {
  const { tokens } = timer;
  if (!tokens?.expiresAt || !tokens.lifetimeMs) {
    timer.refreshAt = undefined;
  } else if (!tokens.refreshable) {
    timer.refreshAt = tokens.expiresAt; // nothing to refresh with: at expiry the connection needs consent again
  } else {
    // Jitter (workflow Math.random is deterministic): connections issued together spread their refreshes.
    const lead = refreshLeadMs(tokens.lifetimeMs);
    timer.refreshAt = tokens.expiresAt - lead - Math.random() * (lead / 2);
  }
  state.expires_at = tokens?.expiresAt ? new Date(tokens.expiresAt).toISOString() : undefined;
  state.next_refresh_at = timer.refreshAt ? new Date(timer.refreshAt).toISOString() : undefined;
  timer.wake = true;
}

/** New tokens (from consent or a refresh), or their loss; either way the timer is set again. */
export function settleTokens(timer: RefreshTimer, state: ConnectionFlowState, next: RefreshOutcome): void {
  if ('status' in next) {
    state.status = next.status === 'gone' ? 'deleted' : 'needs_reconsent';
    timer.tokens = undefined;
  } else {
    timer.tokens = next;
    state.status = 'active';
    state.token_version = next.tokenVersion;
  }
  scheduleRefresh(timer, state);
}

/** The timer has run out on an active connection that is not being deleted. */
export function refreshDue(timer: RefreshTimer, state: ConnectionFlowState, deleting: boolean): boolean {
  return state.status === 'active' && timer.refreshAt !== undefined && Date.now() >= timer.refreshAt && !deleting;
}

/**
 * One refresh at a time: the timer and on-demand projections share it (a rotating refresh token is
 * spent by its first use). `callRefresh` starts the refresh activity for the current token version.
 */
export function refreshTokens(timer: RefreshTimer, state: ConnectionFlowState, callRefresh: () => Promise<RefreshOutcome>): Promise<void> {
  timer.refreshing ??= (async () => {
    try {
      settleTokens(timer, state, await callRefresh());
      state.refreshes_this_run += 1;
    } catch (err) {
      if (isGone(err)) return settleTokens(timer, state, { status: 'gone' });
      // The provider is unreachable after the retries: keep the tokens, try again in a minute.
      timer.refreshAt = Date.now() + 60_000;
      state.next_refresh_at = new Date(timer.refreshAt).toISOString();
    } finally {
      timer.refreshing = undefined;
      timer.wake = true;
    }
  })();
  return timer.refreshing;
}

function isGone(err: unknown): boolean {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === connectionGone;
}
