import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  executeChild,
  setHandler,
  sleep,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { TransformStep } from '../artifacts/content-types/transform.js';
import { render } from './transform-render.js';
import { invocationAttributes } from '../temporal/search-attributes.js';
import { invocationWorkflowId } from './contracts/ids.js';
import { agentRun } from './agent-run.js';
import { type AgentRunState } from './contracts/agent-run.js';
import { mcpRun } from './mcp-run.js';
import {
  type ApprovalInput,
  type StepState,
  type TransformRunInput,
  type TransformRunState,
  type TransformStatus,
  approveStepUpdate,
  notAwaitingApproval,
  rejectStepUpdate,
  transformSettledUpdate,
  transformRunStateQuery,
} from './contracts/transform-run.js';

const settled: TransformStatus[] = ['awaiting_approval', 'completed', 'failed', 'rejected', 'expired'];

/** A step's run failed for good (after its own retries): the step may be retried by its policy. */
class StepFailed extends Error {}

/**
 * A transform operator run (id `invoke-<invocationId>`): its steps in order, each an agent run or
 * tool call as a child workflow (visible on its own in the Temporal UI) or an approval that waits for a
 * person. Agent and LLM steps apply their actions to the workspace: approvals are where a person
 * decides whether the run goes on. Progress is the `state` query.
 */
export async function transformRun(input: TransformRunInput): Promise<TransformRunState> {
  const { definition } = input;
  const state: TransformRunState = {
    invocation_id: input.invocationId,
    kind: 'transform',
    transform_id: input.transformId,
    revision: input.revision,
    workspace_id: input.workspaceId,
    principal_id: input.principal.subject,
    status: 'running',
    current_step: null,
    steps: definition.steps.map((s) => ({ id: s.id, kind: s.kind, status: 'pending', attempts: 0 })),
    started_at: new Date(workflowInfo().startTime).toISOString(),
    ...(input.automation ? { automation: input.automation } : {}),
  };
  const approval: Approval = { decision: undefined };
  registerApprovalHandlers(state, approval);

  const outputs: Record<string, string | null> = {};
  const produced: Record<string, string[]> = {};
  const finish = async (status: TransformStatus) => {
    state.status = status;
    state.current_step = null;
    state.completed_at = new Date().toISOString();
    await condition(allHandlersFinished);
    return state;
  };

  for (const [index, step] of definition.steps.entries()) {
    const s = state.steps[index]!;
    state.current_step = step.id;
    s.started_at = new Date().toISOString();

    if (step.kind === 'approval') {
      // Inline rather than in a helper: the timer starts in the same step as the status change, as it always did.
      s.status = state.status = 'awaiting_approval';
      approval.decision = undefined;
      await condition(() => approval.decision !== undefined, step.timeout_seconds * 1000);
      const ended = settleApproval(state, s, approval.decision);
      if (ended) return finish(ended);
      continue;
    }

    const artifactIds = step.kind === 'tool' ? [] : sourceOf(step.artifact_ids, input.artifactIds, produced);
    if (step.kind !== 'tool' && artifactIds.length === 0) {
      s.status = 'skipped';
      s.error = 'no input artifacts';
      outputs[step.id] = null;
      produced[step.id] = [];
      continue;
    }
    s.status = 'running';
    if (!(await runWithRetries(input, step, s, artifactIds, { outputs, produced }))) return finish('failed');
    s.completed_at = new Date().toISOString();
  }
  return finish('completed');
}

/** The decision an approval step waits for, shared by the approve/reject handlers and the run. */
interface Approval {
  decision: StepState['decision'] | undefined;
}

/** The state query, the `settled` update, and approve/reject (each answers once the run has moved past the approval). */
function registerApprovalHandlers(state: TransformRunState, approval: Approval): void {
  setHandler(transformRunStateQuery, () => state);
  setHandler(transformSettledUpdate, async () => {
    await condition(() => settled.includes(state.status));
    return state;
  });
  const decide = (action: 'approve' | 'reject') => async (d: ApprovalInput) => {
    approval.decision = { action, by: d.by, comment: d.comment, at: new Date().toISOString() };
    await condition(() => state.status !== 'awaiting_approval');
    return state;
  };
  const validator = (_d: ApprovalInput) => {
    if (state.status !== 'awaiting_approval' || approval.decision)
      throw ApplicationFailure.create({ type: notAwaitingApproval, message: `The transform is ${state.status}, not awaiting approval.` });
  };
  setHandler(approveStepUpdate, decide('approve'), { validator });
  setHandler(rejectStepUpdate, decide('reject'), { validator });
}

/** Records an approval step's outcome; answers how the run ends (expired, rejected), or nothing if it goes on. */
function settleApproval(state: TransformRunState, s: StepState, d: StepState['decision'] | undefined): TransformStatus | undefined {
  s.completed_at = new Date().toISOString();
  if (!d) {
    s.status = 'expired';
    return 'expired';
  }
  s.decision = d;
  if (d.action === 'reject') {
    s.status = 'rejected';
    return 'rejected';
  }
  s.status = 'completed';
  state.status = 'running';
  return undefined;
}

type RunStep = Exclude<TransformStep, { kind: 'approval' }>;

/**
 * Runs an agent, LLM or tool step as a child workflow until it succeeds or its retry policy gives up
 * (answers false; the step is then failed). Called without an await before it, so the first child starts
 * in the same step of the run as before this was a function of its own.
 */
async function runWithRetries(
  input: TransformRunInput,
  step: RunStep,
  s: StepState,
  artifactIds: string[],
  flow: { outputs: Record<string, string | null>; produced: Record<string, string[]> },
): Promise<boolean> {
  const { outputs, produced } = flow;
  const retry = step.retry ?? { maximum_attempts: 1, initial_interval_seconds: 1, backoff_coefficient: 2 };
  let wait = retry.initial_interval_seconds * 1000;
  for (;;) {
    s.attempts += 1;
    const childId = uuid4(); // deterministic on replay: the child invocation's own id
    s.invocation_id = childId;
    try {
      const result =
        step.kind === 'tool'
          ? await toolStep(input, step, childId, render(step.arguments, { input: input.input, outputs }))
          : await agentStep(input, step, childId, artifactIds, render(step.input ?? null, { input: input.input, outputs }));
      outputs[step.id] = s.output = result.output;
      produced[step.id] = s.artifact_ids = result.artifactIds;
      s.status = 'completed';
      delete s.error;
      return true;
    } catch (err) {
      if (!(err instanceof StepFailed)) throw err;
      s.error = err.message;
      if (s.attempts >= retry.maximum_attempts) {
        s.status = 'failed';
        s.completed_at = new Date().toISOString();
        return false;
      }
      await sleep(wait);
      wait *= retry.backoff_coefficient;
    }
  }
}

function sourceOf(source: string[] | string, inputIds: string[], produced: Record<string, string[]>): string[] {
  if (Array.isArray(source)) return source;
  if (source === 'input') return inputIds;
  return produced[source.slice('steps.'.length)] ?? [];
}

const attributes = (input: TransformRunInput, agent: string, artifactId: string) =>
  invocationAttributes({
    workspaceId: input.workspaceId,
    artifactId,
    principalId: input.principal.subject,
    runKind: 'transform_step',
    agent,
    mode: 'apply',
  });

/** An agent or LLM step: a child agent run in apply mode; the artifacts it made or changed flow on. */
async function agentStep(
  input: TransformRunInput,
  step: Extract<TransformStep, { kind: 'agent' | 'llm' }>,
  childId: string,
  artifactIds: string[],
  text: string | null,
) {
  const agent = step.kind === 'llm' ? 'llm' : step.agent;
  const run: AgentRunState = await executeChild(agentRun, {
    workflowId: invocationWorkflowId(childId),
    args: [
      {
        invocationId: childId,
        agent,
        callsOut: input.llmAgents.includes(agent),
        mode: 'apply',
        workspaceId: input.workspaceId,
        artifactIds,
        input: text,
        params: step.kind === 'agent' ? step.params : {},
        principal: input.principal,
        previewExpirySeconds: 1,
        ...(input.automation ? { automation: input.automation } : {}),
      },
    ],
    typedSearchAttributes: attributes(input, agent, input.transformId),
  });
  if (run.status !== 'completed') throw new StepFailed(`${agent} ${run.status}: ${run.error?.message ?? ''}`.trim());
  const touched = run.actions.filter((a) => a.status === 'applied' && a.artifact_id && a.kind !== 'delete').map((a) => a.artifact_id!);
  return { output: run.output, artifactIds: [...new Set(touched)] };
}

/** A tool step: a child tool call; its text is the step's output. */
async function toolStep(
  input: TransformRunInput,
  step: Extract<TransformStep, { kind: 'tool' }>,
  childId: string,
  args: Record<string, unknown>,
) {
  const outcome = await executeChild(mcpRun, {
    workflowId: invocationWorkflowId(childId),
    args: [
      {
        invocationId: childId,
        serverId: step.server_id,
        serverRevision: input.serverRevisions[step.server_id],
        workspaceId: input.workspaceId,
        principalId: input.principal.subject,
        operation: { kind: 'call_tool', name: step.tool, arguments: args, maxTotalMs: input.maxCallSeconds * 1000 },
      },
    ],
    typedSearchAttributes: attributes(input, `tool:${step.tool}`, step.server_id),
  });
  if (outcome.kind !== 'tool_result') throw new StepFailed('the server did not return a tool result');
  const text = outcome.result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
  if (outcome.result.isError) throw new StepFailed(`${step.tool} failed: ${text.slice(0, 500)}`);
  return { output: text, artifactIds: [] };
}
