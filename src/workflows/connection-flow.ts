import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import {
  type ConnectionFlowInput,
  type ConnectionFlowState,
  beginUpdate,
  callbackUpdate,
  connectionGone,
  connectionFlowStateQuery,
  deleteUpdate,
  refreshUpdate,
} from './contracts/connection-flow.js';
import { type RefreshTimer, refreshDue, refreshTokens, scheduleRefresh, settleTokens } from './connection-refresh-timer.js';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 6,
    nonRetryableErrorTypes: ['AuthorizerUnusable', connectionGone],
  },
});

/** The flow's mutable state besides the query state: one object the handlers, the timer and the loop share. */
interface Flow extends RefreshTimer {
  input: ConnectionFlowInput;
  state: ConnectionFlowState;
  attemptDeadline: number | undefined;
  deleting: boolean;
}

export async function connectionFlow(input: ConnectionFlowInput): Promise<ConnectionFlowState> {
  const carried = input.carried;
  const state: ConnectionFlowState = {
    status: carried ? 'active' : 'pending',
    token_version: carried?.tokenVersion ?? 0,
    refreshes_this_run: 0,
  };
  const flow: Flow = {
    input,
    state,
    tokens: carried,
    refreshAt: undefined,
    attemptDeadline: undefined,
    refreshing: undefined,
    deleting: false,
    wake: false,
  };
  if (flow.tokens) scheduleRefresh(flow, state);
  registerHandlers(flow);
  // The loop stays here rather than in a helper: every await in it is the one the workflow always had,
  // so running workflows replay the same commands in the same order.
  for (;;) {
    const next = Math.min(flow.refreshAt ?? Infinity, flow.attemptDeadline ?? Infinity);
    flow.wake = false;
    if (next === Infinity) await condition(() => flow.wake);
    else if (next > Date.now()) await condition(() => flow.wake, next - Date.now());
    if (state.status === 'deleted') break;
    if (flow.attemptDeadline !== undefined && Date.now() >= flow.attemptDeadline && state.attempt) {
      const recording = expireAttempt(flow);
      if (recording) await recording;
    }
    if (refreshDue(flow, state, flow.deleting)) await refresh(flow);
    const idle = !state.attempt && !flow.deleting && flow.refreshing === undefined && allHandlersFinished();
    // Failed, needing re-consent, or a begin that never got going: nothing left to wait for in this run.
    if (idle && state.status !== 'active') break;
    if (idle && state.status === 'active' && (state.refreshes_this_run >= input.refreshesPerRun || workflowInfo().continueAsNewSuggested)) {
      await continueAsNew<typeof connectionFlow>({ ...input, carried: flow.tokens! });
    }
  }
  await condition(allHandlersFinished);
  return state;
}

/** The refresh the timer and the refresh update share, for the token version the flow holds now. */
function refresh(flow: Flow): Promise<void> {
  return refreshTokens(flow, flow.state, () =>
    acts.refreshConnectionTokens({ connectionId: flow.input.connectionId, tokenVersion: flow.state.token_version }),
  );
}

/**
 * Nobody finished the consent in time: a pending connection fails; an active one keeps its tokens.
 * Not async: the caller awaits the activity's own promise, and only when there is one, as it always did.
 */
function expireAttempt(flow: Flow): Promise<void> | undefined {
  const { state } = flow;
  const expired = state.attempt!.id;
  state.attempt = undefined;
  flow.attemptDeadline = undefined;
  if (state.status === 'pending') {
    state.status = 'failed';
    return acts.recordConnectionFailure({
      connectionId: flow.input.connectionId,
      attemptId: expired,
      error: { code: 'consent_expired', detail: 'Nobody completed the sign-in at the provider in time; start again.' },
    });
  }
  return undefined;
}

/** Every update wakes the main loop when it ends, however it ends: the loop decides what follows. */
function waking<A extends unknown[], R>(flow: Flow, handler: (...args: A) => Promise<R>) {
  return async (...args: A): Promise<R> => {
    try {
      return await handler(...args);
    } finally {
      flow.wake = true;
    }
  };
}

function registerHandlers(flow: Flow): void {
  const { input, state } = flow;
  setHandler(connectionFlowStateQuery, () => state);

  setHandler(
    beginUpdate,
    waking(flow, async () => {
      if (flow.deleting) throw ApplicationFailure.nonRetryable('The connection is being deleted.', connectionGone);
      const attemptId = uuid4();
      const expiresAt = Date.now() + input.consentTimeoutMs;
      await acts.beginConnectionAttempt({ connectionId: input.connectionId, attemptId, expiresAt });
      state.attempt = { id: attemptId, expires_at: new Date(expiresAt).toISOString() };
      flow.attemptDeadline = expiresAt;
      if (state.status !== 'active') state.status = 'pending';
      return { attempt_id: attemptId, expires_at: state.attempt.expires_at };
    }),
  );

  setHandler(
    callbackUpdate,
    waking(flow, ({ attemptId }) => completeAttempt(flow, attemptId)),
  );

  setHandler(
    refreshUpdate,
    waking(flow, async ({ seenVersion }) => {
      if (state.status === 'active' && state.token_version === seenVersion) await refresh(flow);
      return { status: state.status, token_version: state.token_version };
    }),
  );

  setHandler(
    deleteUpdate,
    waking(flow, async () => {
      flow.deleting = true;
      flow.wake = true;
      await condition(() => flow.refreshing === undefined);
      // A provider still unreachable after the retries keeps its grant; the tokens are deleted here regardless.
      const result = await acts
        .revokeConnection({ connectionId: input.connectionId, atProvider: true })
        .catch(() => acts.revokeConnection({ connectionId: input.connectionId, atProvider: false }));
      state.status = 'deleted';
      state.attempt = undefined;
      flow.tokens = undefined;
      return result;
    }),
  );
}

/** The callback update: exchanges the attempt's code for tokens, or records why there are none. */
async function completeAttempt(flow: Flow, attemptId: string) {
  const { input, state } = flow;
  // One callback per attempt: a replay, or one for an attempt a newer start replaced, changes nothing.
  if (state.attempt?.id !== attemptId)
    return {
      status: state.status,
      error: { code: 'superseded', detail: 'This sign-in was replaced by a newer one, or has already been used.' },
    };
  state.attempt = undefined;
  flow.attemptDeadline = undefined;
  flow.wake = true;
  const outcome = await acts.completeConnectionAttempt({ connectionId: input.connectionId, attemptId }).catch((err: unknown) => ({
    ok: false as const,
    error: { code: 'provider_error', detail: `The token endpoint could not be reached: ${causeOf(err)}` },
    recorded: false,
  }));
  if (outcome.ok) {
    settleTokens(flow, state, outcome.tokens);
    return { status: state.status };
  }
  if (!outcome.recorded) await acts.recordConnectionFailure({ connectionId: input.connectionId, error: outcome.error });
  if (state.status !== 'active') state.status = 'failed';
  return { status: state.status, error: outcome.error };
}

function causeOf(err: unknown): string {
  return err instanceof ActivityFailure && err.cause ? err.cause.message : (err as Error).message;
}
