import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { ActionOutcome, RecordedAction } from '../invocations/proposed-actions/schema.js';
import type { PrincipalSnapshot } from '../identity/principal.js';
import {
  type AgentRunInput,
  type AgentRunState,
  type Decision,
  type InvocationStatus,
  agentRunStateQuery,
  applyUpdate,
  decidedActionsFailure,
  discardUpdate,
  settledStatuses,
  settledUpdate,
  unknownActionsFailure,
  notPendingFailure,
} from './contracts/agent-run.js';

/**
 * Issue #37: a preview is decided in parts (apply some now, the rest later or discard them) until
 * nothing is left proposed, the rest is discarded, or it expires. Runs started before this waited for
 * one decision; they replay on the old path.
 */
const partialDecisionsPatch = 'agent-run-partial-decisions';

const applyBatch = 50;
const retry = { initialInterval: '1 second', maximumInterval: '10 seconds', backoffCoefficient: 2 };
const nonRetryableErrorTypes = ['InvocationRefused', 'AgentFailed'];

function activitiesFor(callsOut: boolean) {
  // Short, local work (a built-in agent over the workspace, writes to Mongo) runs as local activities:
  // no extra round trips through the server. A model call runs as a regular activity with its own timeout.
  const local = proxyLocalActivities<Activities>({
    startToCloseTimeout: '2 minutes',
    retry: { ...retry, maximumAttempts: 5, nonRetryableErrorTypes },
  });
  const remote: ActivityOptions = { startToCloseTimeout: '15 minutes', retry: { ...retry, maximumAttempts: 2, nonRetryableErrorTypes } };
  return { apply: local, propose: callsOut ? proxyActivities<Activities>(remote) : local };
}

/** The failure an activity gave up with, as the run reports it. */
function failureOf(err: unknown): { type: string; message: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) return { type: cause.type ?? 'error', message: cause.message };
  return { type: 'error', message: cause instanceof Error ? cause.message : String(cause) };
}

/**
 * One agent or LLM invocation (id `invoke-<invocationId>`, SPEC §4.3): the agent proposes actions;
 * in preview mode the run waits for an `apply` (all or chosen ones) or `discard` update, in apply mode
 * it applies at once, provided the caller may apply every one of them. Actions touch only drafts of
 * the invocation's workspace, each applied once, with the invocation in the artifact's provenance.
 */
export async function agentRun(input: AgentRunInput): Promise<AgentRunState> {
  const state: AgentRunState = {
    invocation_id: input.invocationId,
    kind: 'agent_run',
    agent: input.agent,
    ...(input.server ? { server_id: input.server.id } : {}),
    mode: input.mode,
    workspace_id: input.workspaceId,
    principal_id: input.principal.subject,
    artifact_ids: input.artifactIds,
    status: 'running',
    output: null,
    actions: [],
    progress: { applied: 0, total: 0 },
    started_at: new Date(workflowInfo().startTime).toISOString(),
    ...(input.automation ? { automation: input.automation } : {}),
  };
  const run: DecisionState = { decided: false, applier: input.principal, partial: false, closed: false, queue: [] };
  setHandler(agentRunStateQuery, () => state);
  registerDecisionHandlers(state, run);

  const acts = activitiesFor(input.callsOut);
  const end = async (status: InvocationStatus) => {
    state.status = status;
    state.completed_at = new Date().toISOString();
    run.decided = true;
    run.closed = true;
    // Decisions still queued when the run ends (a failed apply) answer with the final state.
    for (const request of run.queue) request.done = true;
    await condition(allHandlersFinished);
    return state;
  };

  try {
    const proposal = await acts.propose.proposeActions(input);
    state.actions = proposal.actions;
    state.output = proposal.output;
  } catch (err) {
    state.error = failureOf(err);
    return end('failed');
  }
  const proposed = () => state.actions.filter((a) => a.status === 'proposed');

  if (input.mode === 'preview' && patched(partialDecisionsPatch)) {
    run.partial = true;
    state.decisions = [];
    state.status = 'awaiting_decision';
    state.expires_at = new Date(Date.now() + input.previewExpirySeconds * 1000).toISOString();
    return end(await decideInParts(input, state, acts.apply, run));
  }
  if (input.mode === 'preview') {
    state.status = 'awaiting_decision';
    state.expires_at = new Date(Date.now() + input.previewExpirySeconds * 1000).toISOString();
    await condition(() => state.decision !== undefined, input.previewExpirySeconds * 1000);
    const decision = state.decision as Decision | undefined;
    if (!decision || decision.action === 'discard') {
      for (const a of proposed()) a.status = 'discarded';
      return end(decision ? 'discarded' : 'expired');
    }
    if (decision.action_ids) for (const a of proposed()) if (!decision.action_ids.includes(a.id)) a.status = 'skipped';
  }

  state.status = 'applying';
  run.decided = true;
  return end(await applyChosen(input, state, acts.apply, run));
}

/**
 * A preview decided in parts (issue #37): the decisions queue up and are taken one at a time, in the
 * order they came, by this coroutine alone (so the activity calls keep their order). The run waits
 * until nothing is proposed any more, or until it expires: what is still proposed then is discarded.
 */
async function decideInParts(
  input: AgentRunInput,
  state: AgentRunState,
  apply: ReturnType<typeof activitiesFor>['apply'],
  run: DecisionState,
): Promise<InvocationStatus> {
  const proposed = () => state.actions.filter((a) => a.status === 'proposed');
  const deadline = Date.parse(state.expires_at!);
  let decided = 0;
  let applied = false;
  while (decided === 0 || proposed().length > 0 || run.queue.length > 0) {
    const came = await condition(() => run.queue.length > 0, Math.max(1, deadline - Date.now()));
    if (!came) {
      run.closed = true;
      for (const a of proposed()) a.status = 'discarded';
      return 'expired';
    }
    const request = run.queue[0]!;
    if (request.decision.action === 'apply') {
      applied = true;
      const ids = request.decision.action_ids;
      const chosen = proposed().filter((a) => !ids || ids.includes(a.id));
      if (chosen.length) {
        state.status = 'applying';
        const outcome = await applyChosen(input, state, apply, { ...run, applier: request.by }, chosen);
        if (outcome !== 'completed') return outcome;
        state.status = 'awaiting_decision';
      }
    }
    const ids = request.decision.action_ids;
    const discards = (id: string) =>
      request.decision.action === 'discard' ? !ids || ids.includes(id) : request.decision.discard_rest === true;
    for (const a of proposed()) if (discards(a.id)) a.status = 'discarded';
    run.queue.shift();
    request.done = true;
    decided += 1;
  }
  return applied ? 'completed' : 'discarded';
}

/**
 * Applies the proposed actions still chosen, in batches. Only this run's own coroutine issues workflow
 * commands (the handlers only wait on conditions), so the activity calls keep their order here.
 */
async function applyChosen(
  input: AgentRunInput,
  state: AgentRunState,
  apply: ReturnType<typeof activitiesFor>['apply'],
  run: Pick<DecisionState, 'applier'>,
  only?: RecordedAction[],
): Promise<InvocationStatus> {
  const proposed = () => state.actions.filter((a) => a.status === 'proposed');
  const chosen = only ?? proposed();
  state.progress.total += chosen.length;
  try {
    for (let start = 0; start < chosen.length; start += applyBatch) {
      const batch = chosen.slice(start, start + applyBatch);
      // Apply mode takes all or nothing: the first batch checks every action before applying any.
      const allOrNothing = input.mode === 'apply' && start === 0 ? chosen : undefined;
      const outcomes = await apply.applyActions({
        invocationId: input.invocationId,
        agent: input.agent,
        workspaceId: input.workspaceId,
        principal: run.applier,
        actions: batch,
        ...(allOrNothing ? { allOrNothing } : {}),
        ...(input.automation ? { automation: input.automation } : {}),
      });
      record(state.actions, outcomes);
      if (allOrNothing && outcomes.some((o) => o.status === 'refused')) {
        for (const a of proposed()) a.status = 'skipped';
        const refused = outcomes.length;
        state.error = {
          type: 'forbidden',
          message: `Apply mode needs permission for every action; ${refused} of them ${refused === 1 ? 'is' : 'are'} not permitted, so none was applied.`,
        };
        return 'refused';
      }
      state.progress.applied += batch.length;
    }
  } catch (err) {
    state.error = failureOf(err);
    return 'failed';
  }
  return 'completed';
}

/** A decision waiting its turn (decided in parts), and whether it has been taken. */
interface QueuedDecision {
  decision: Decision;
  by: PrincipalSnapshot;
  done: boolean;
}

/** What the decision handlers and the run share besides the query state: whether the run has moved past the decision, and who applies. */
interface DecisionState {
  decided: boolean;
  applier: PrincipalSnapshot;
  /** Decided in parts (issue #37): the fields below apply. */
  partial: boolean;
  /** A decision that ends the run has been taken or queued (apply all, discard the rest, discard all), or the run has ended. */
  closed: boolean;
  queue: QueuedDecision[];
}

/** The `settled` update, and the `apply`/`discard` decisions a preview waits for (each answers once the run has moved on). */
function registerDecisionHandlers(state: AgentRunState, run: DecisionState): void {
  setHandler(settledUpdate, async () => {
    await condition(() => settledStatuses.includes(state.status));
    return state;
  });
  const notPending = () =>
    ApplicationFailure.create({ type: notPendingFailure, message: `The invocation is ${state.status}, not awaiting a decision.` });
  const pending = () => {
    if (
      run.partial
        ? run.closed || !['awaiting_decision', 'applying'].includes(state.status)
        : state.status !== 'awaiting_decision' || state.decision
    )
      throw notPending();
  };
  setHandler(
    applyUpdate,
    async (d) => {
      const decision: Decision = {
        action: 'apply',
        by: d.by.subject,
        at: new Date().toISOString(),
        ...(d.action_ids ? { action_ids: d.action_ids } : {}),
        ...(d.discard_rest ? { discard_rest: true } : {}),
      };
      if (run.partial) return queueDecision(state, run, decision, d.by);
      state.decision = decision;
      run.applier = d.by;
      await condition(() => run.decided);
      return state;
    },
    {
      validator: (d) => {
        pending();
        if (run.partial) return checkChosen(state, run, 'apply', d.action_ids);
        const unknown = (d.action_ids ?? []).filter((id: string) => !state.actions.some((a) => a.id === id && a.status === 'proposed'));
        if (unknown.length)
          throw ApplicationFailure.create({
            type: unknownActionsFailure,
            message: `Not proposed actions of this invocation: ${unknown.join(', ')}.`,
          });
      },
    },
  );
  setHandler(
    discardUpdate,
    async (d) => {
      const decision: Decision = {
        action: 'discard',
        by: d.by,
        at: new Date().toISOString(),
        ...(d.action_ids ? { action_ids: d.action_ids } : {}),
      };
      if (run.partial) return queueDecision(state, run, decision, null);
      state.decision = decision;
      await condition(() => run.decided);
      return state;
    },
    {
      validator: (d) => {
        pending();
        if (run.partial) checkChosen(state, run, 'discard', d.action_ids);
        else if (d.action_ids)
          throw ApplicationFailure.create({
            type: notPendingFailure,
            message: 'This invocation was started before decisions in parts: it can only be discarded whole, or applied.',
          });
      },
    },
  );
}

/** Records a decision (decided in parts) and waits until the run has taken it. */
async function queueDecision(state: AgentRunState, run: DecisionState, decision: Decision, by: PrincipalSnapshot | null) {
  // Taken here, before any wait: a decision that came next is validated against this one.
  if (!decision.action_ids || decision.discard_rest) run.closed = true;
  const request: QueuedDecision = { decision, by: by ?? run.applier, done: false };
  run.queue.push(request);
  state.decision = decision;
  state.decisions = [...(state.decisions ?? []), decision];
  await condition(() => request.done);
  return state;
}

/**
 * The actions a decision names, as they stand: unknown ids are refused, and so are actions decided
 * otherwise already (skipped, discarded, refused, conflict) or by a decision queued before. Applying
 * an applied action again (or one an earlier decision is applying) is no change, and allowed.
 */
function checkChosen(state: AgentRunState, run: DecisionState, action: 'apply' | 'discard', ids: string[] | undefined): void {
  if (!ids) return;
  const unknown = ids.filter((id) => !state.actions.some((a) => a.id === id));
  if (unknown.length)
    throw ApplicationFailure.create({ type: unknownActionsFailure, message: `No such actions in this invocation: ${unknown.join(', ')}.` });
  const queuedFor = (id: string) => run.queue.find((r) => r.decision.action_ids?.includes(id))?.decision.action;
  const decided = ids.flatMap((id) => {
    const a = state.actions.find((x) => x.id === id)!;
    const status = queuedFor(id) === 'discard' ? 'being discarded' : queuedFor(id) === 'apply' ? 'being applied' : a.status;
    if (status === 'proposed' || (action === 'apply' && (status === 'applied' || status === 'being applied'))) return [];
    return [`${id} is ${status}`];
  });
  if (decided.length)
    throw ApplicationFailure.create({
      type: decidedActionsFailure,
      message: `Only proposed actions can be ${action === 'apply' ? 'applied' : 'discarded'}: ${decided.join(', ')}.`,
    });
}

function record(actions: RecordedAction[], outcomes: ActionOutcome[]): void {
  for (const o of outcomes) {
    const a = actions.find((x) => x.id === o.id)!;
    a.status = o.status;
    if (o.artifact_id) a.artifact_id = o.artifact_id;
    if (o.reason) a.reason = o.reason;
  }
}
