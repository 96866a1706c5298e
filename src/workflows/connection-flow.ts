import { ActivityFailure, ApplicationFailure, allHandlersFinished, condition, continueAsNew, defineQuery, defineUpdate, proxyActivities, setHandler, uuid4, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { type ConnectionFlowInput, type ConnectionFlowState, beginUpdate, callbackUpdate, connectionGone, connectionStateQuery, deleteUpdate, refreshUpdate, type TokenState } from './contracts/connection-flow.js';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 6, nonRetryableErrorTypes: ['AuthorizerUnusable', connectionGone] },
});

/** How long before expiry a refresh is due: a minute (SPEC §8's buffer), or a third of a short token's life. */
export function refreshLeadMs(lifetimeMs: number): number {
  return Math.min(60_000, lifetimeMs / 3);
}

export async function connectionFlow(input: ConnectionFlowInput): Promise<ConnectionFlowState> {
  const carried = input.carried;
  const state: ConnectionFlowState = { status: carried ? 'active' : 'pending', token_version: carried?.tokenVersion ?? 0, refreshes_this_run: 0 };
  let tokens: TokenState | undefined = carried;
  let refreshAt: number | undefined;
  let attemptDeadline: number | undefined;
  let refreshing: Promise<void> | undefined;
  let deleting = false;
  let wake = false;

  const schedule = () => {
    if (!tokens?.expiresAt || !tokens.lifetimeMs) {
      refreshAt = undefined;
    } else if (!tokens.refreshable) {
      refreshAt = tokens.expiresAt; // nothing to refresh with: at expiry the connection needs consent again
    } else {
      // Jitter (workflow Math.random is deterministic): connections issued together spread their refreshes.
      const lead = refreshLeadMs(tokens.lifetimeMs);
      refreshAt = tokens.expiresAt - lead - Math.random() * (lead / 2);
    }
    state.expires_at = tokens?.expiresAt ? new Date(tokens.expiresAt).toISOString() : undefined;
    state.next_refresh_at = refreshAt ? new Date(refreshAt).toISOString() : undefined;
    wake = true;
  };
  if (tokens) schedule();

  const settleTokens = (next: TokenState | { status: 'needs_reconsent' | 'gone' }) => {
    if ('status' in next) {
      state.status = next.status === 'gone' ? 'deleted' : 'needs_reconsent';
      tokens = undefined;
    } else {
      tokens = next;
      state.status = 'active';
      state.token_version = next.tokenVersion;
    }
    schedule();
  };

  /** One refresh at a time: the timer and on-demand projections share it (a rotating refresh token is spent by its first use). */
  const refresh = (): Promise<void> => {
    refreshing ??= (async () => {
      try {
        settleTokens(await acts.refreshConnectionTokens({ connectionId: input.connectionId, tokenVersion: state.token_version }));
        state.refreshes_this_run += 1;
      } catch (err) {
        if (isGone(err)) return settleTokens({ status: 'gone' });
        // The provider is unreachable after the retries: keep the tokens, try again in a minute.
        refreshAt = Date.now() + 60_000;
        state.next_refresh_at = new Date(refreshAt).toISOString();
      } finally {
        refreshing = undefined;
        wake = true;
      }
    })();
    return refreshing;
  };

  setHandler(connectionStateQuery, () => state);

  /** Every update wakes the main loop when it ends, however it ends: the loop decides what follows. */
  const waking =
    <A extends unknown[], R>(handler: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await handler(...args);
      } finally {
        wake = true;
      }
    };

  setHandler(beginUpdate, waking(async () => {
    if (deleting) throw ApplicationFailure.nonRetryable('The connection is being deleted.', connectionGone);
    const attemptId = uuid4();
    const expiresAt = Date.now() + input.consentTimeoutMs;
    await acts.beginConnectionAttempt({ connectionId: input.connectionId, attemptId, expiresAt });
    state.attempt = { id: attemptId, expires_at: new Date(expiresAt).toISOString() };
    attemptDeadline = expiresAt;
    if (state.status !== 'active') state.status = 'pending';
    return { attempt_id: attemptId, expires_at: state.attempt.expires_at };
  }));

  setHandler(callbackUpdate, waking(async ({ attemptId }) => {
    // One callback per attempt: a replay, or one for an attempt a newer start replaced, changes nothing.
    if (state.attempt?.id !== attemptId) return { status: state.status, error: { code: 'superseded', detail: 'This sign-in was replaced by a newer one, or has already been used.' } };
    state.attempt = undefined;
    attemptDeadline = undefined;
    wake = true;
    const outcome = await acts.completeConnectionAttempt({ connectionId: input.connectionId, attemptId }).catch((err: unknown) => ({
      ok: false as const,
      error: { code: 'provider_error', detail: `The token endpoint could not be reached: ${causeOf(err)}` },
      recorded: false,
    }));
    if (outcome.ok) {
      settleTokens(outcome.tokens);
      return { status: state.status };
    }
    if (!outcome.recorded) await acts.recordConnectionFailure({ connectionId: input.connectionId, error: outcome.error });
    if (state.status !== 'active') state.status = 'failed';
    return { status: state.status, error: outcome.error };
  }));

  setHandler(refreshUpdate, waking(async ({ seenVersion }) => {
    if (state.status === 'active' && state.token_version === seenVersion) await refresh();
    return { status: state.status, token_version: state.token_version };
  }));

  setHandler(deleteUpdate, waking(async () => {
    deleting = true;
    wake = true;
    await condition(() => refreshing === undefined);
    // A provider still unreachable after the retries keeps its grant; the tokens are deleted here regardless.
    const result = await acts.revokeConnection({ connectionId: input.connectionId, atProvider: true }).catch(() => acts.revokeConnection({ connectionId: input.connectionId, atProvider: false }));
    state.status = 'deleted';
    state.attempt = undefined;
    tokens = undefined;
    return result;
  }));

  for (;;) {
    const next = Math.min(refreshAt ?? Infinity, attemptDeadline ?? Infinity);
    wake = false;
    if (next === Infinity) await condition(() => wake);
    else if (next > Date.now()) await condition(() => wake, next - Date.now());
    if (state.status === 'deleted') break;
    if (attemptDeadline !== undefined && Date.now() >= attemptDeadline && state.attempt) {
      const expired = state.attempt.id;
      state.attempt = undefined;
      attemptDeadline = undefined;
      if (state.status === 'pending') {
        state.status = 'failed';
        await acts.recordConnectionFailure({ connectionId: input.connectionId, attemptId: expired, error: { code: 'consent_expired', detail: 'Nobody completed the sign-in at the provider in time; start again.' } });
      }
    }
    if (state.status === 'active' && refreshAt !== undefined && Date.now() >= refreshAt && !deleting) await refresh();
    const idle = !state.attempt && !deleting && refreshing === undefined && allHandlersFinished();
    // Failed, needing re-consent, or a begin that never got going: nothing left to wait for in this run.
    if (idle && state.status !== 'active') break;
    if (idle && state.status === 'active' && (state.refreshes_this_run >= input.refreshesPerRun || workflowInfo().continueAsNewSuggested)) {
      await continueAsNew<typeof connectionFlow>({ ...input, carried: tokens! });
    }
  }
  await condition(allHandlersFinished);
  return state;
}

function isGone(err: unknown): boolean {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === connectionGone;
}

function causeOf(err: unknown): string {
  return err instanceof ActivityFailure && err.cause ? err.cause.message : (err as Error).message;
}
