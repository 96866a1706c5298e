import {
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
  type Client,
} from '@temporalio/client';
import type { QueryDefinition, SearchAttributePair, UpdateDefinition } from '@temporalio/common';
import type { Config } from '../kernel/config/env.js';
import { Problem, problems } from '../kernel/errors/problem.js';
import { invocationStateQuery, type InvocationState } from '../workflows/contracts/invocation.js';
import { within } from '../temporal/within.js';
import { invocationWorkflowId } from '../workflows/contracts/ids.js';
import { transformRunType, type TransformRun } from '../workflows/contracts/transform-run.js';
import {
  approveStepUpdate,
  rejectStepUpdate,
  transformSettledUpdate,
  transformRunStateQuery,
  type ApprovalInput,
  type TransformRunInput,
  type TransformRunState,
} from '../workflows/contracts/transform-run.js';
import { agentRunType, type AgentRun } from '../workflows/contracts/agent-run.js';
import {
  agentRunStateQuery,
  applyUpdate,
  discardUpdate,
  decidedActionsFailure,
  settledUpdate,
  unknownActionsFailure,
  type AgentRunInput,
  type AgentRunState,
  type ApplyInput,
  type DiscardInput,
} from '../workflows/contracts/agent-run.js';
import { notPendingFailure } from '../workflows/contracts/commit-workspace.js';
import { startOnce } from '../temporal/start-once.js';
import { invocationAttributes } from '../temporal/search-attributes.js';
import { agentId } from '../invocations/agents/registry.js';

/** A refused update as the problem the caller reads. */
function decisionProblem(err: WorkflowUpdateFailedError): Problem {
  const cause = err.cause as { type?: string; message?: string } | undefined;
  if (cause?.type === notPendingFailure)
    return problems.conflict('invocation-not-pending', cause.message ?? 'The invocation is not awaiting a decision.');
  if (cause?.type === unknownActionsFailure)
    return problems.validation(cause.message ?? 'Unknown actions.', [
      { name: 'action_ids', reason: 'must name proposed actions of this invocation' },
    ]);
  if (cause?.type === decidedActionsFailure)
    return problems.conflict('action-not-proposed', cause.message ?? 'Some of the actions were already decided otherwise.');
  return problems.conflict('invocation-not-pending', cause?.message ?? err.message);
}

/** The API's side of agent runs: start (or find started), wait until settled, decide, read. */
export class InvocationWorkflows {
  constructor(
    private readonly client: Client,
    private readonly config: Config,
  ) {}

  /**
   * Starts an agent run (task agent, LLM mode, or an MCP server's tool as an agent); the same
   * invocation id again (a retried request) attaches to the run already started.
   */
  startAgentRun(input: AgentRunInput): Promise<void> {
    return this.start(
      agentRunType,
      input,
      invocationAttributes({
        workspaceId: input.workspaceId,
        // The artifact invoked: the MCP server whose tool acts as the agent, else the built-in agent.
        artifactId: input.server?.id ?? agentId(input.agent),
        principalId: input.principal.subject,
        runKind: input.agent === 'llm' ? 'llm' : 'task_agent',
        agent: input.agent,
        mode: input.mode,
      }),
    );
  }

  /** Starts a transform run (every agent step applies); the same invocation id again attaches to the run already started. */
  startTransformRun(input: TransformRunInput): Promise<void> {
    return this.start(
      transformRunType,
      input,
      invocationAttributes({
        workspaceId: input.workspaceId,
        artifactId: input.transformId,
        principalId: input.principal.subject,
        runKind: 'transform',
        agent: 'transform',
        mode: 'apply',
      }),
    );
  }

  /** Starts the run under the invocation's workflow id, findable in the Temporal UI by its search attributes. */
  private async start(
    workflow: typeof agentRunType | typeof transformRunType,
    input: AgentRunInput | TransformRunInput,
    searchAttributes: SearchAttributePair[],
  ): Promise<void> {
    await startOnce<(input: AgentRunInput | TransformRunInput) => Promise<unknown>>(
      this.client,
      workflow,
      {
        workflowId: invocationWorkflowId(input.invocationId),
        taskQueue: this.config.TEMPORAL_TASK_QUEUE,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: searchAttributes,
      },
      { eager: true },
    );
  }

  /**
   * The run's state once it has settled (waiting for a decision, or ended) within `waitMs`, else null.
   * An update cannot reach a run that has ended: its state is then read by query.
   */
  private async settledState<S>(
    invocationId: string,
    update: UpdateDefinition<S, []>,
    query: QueryDefinition<S>,
    waitMs: number,
  ): Promise<S | null> {
    const handle = this.client.workflow.getHandle(invocationWorkflowId(invocationId));
    const settled = handle.executeUpdate(update).catch(() => handle.query(query));
    return (await within(settled, waitMs))?.value ?? null;
  }

  /** A transform's state once it waits for an approval or has ended. */
  transformSettled(invocationId: string, waitMs: number): Promise<TransformRunState | null> {
    return this.settledState(invocationId, transformSettledUpdate, transformRunStateQuery, waitMs);
  }

  /** Approves or rejects the approval step a transform waits at; the state once the decision is taken. */
  async approve(invocationId: string, action: 'approve' | 'reject', input: ApprovalInput): Promise<TransformRunState> {
    const handle = this.client.workflow.getHandle<TransformRun>(invocationWorkflowId(invocationId));
    try {
      return await handle.executeUpdate(action === 'approve' ? approveStepUpdate : rejectStepUpdate, { args: [input] });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError)
        throw problems.conflict(
          'invocation-not-pending',
          (err.cause as Error | undefined)?.message ?? 'The transform is not awaiting approval.',
        );
      throw err;
    }
  }

  /** An agent run's state once its proposals are ready or it has ended. */
  settled(invocationId: string, waitMs: number): Promise<AgentRunState | null> {
    return this.settledState(invocationId, settledUpdate, agentRunStateQuery, waitMs);
  }

  /**
   * Applies (all or some) or discards (all or some) the proposals of a run awaiting a decision. The
   * state once the decision is taken, or null when that takes longer than `waitMs`; a decision the run
   * refuses is a problem at once.
   */
  async decide(
    invocationId: string,
    decision: { action: 'apply'; input: ApplyInput } | { action: 'discard'; input: DiscardInput },
    waitMs: number,
  ): Promise<AgentRunState | null> {
    const handle = this.client.workflow.getHandle<AgentRun>(invocationWorkflowId(invocationId));
    try {
      const update =
        decision.action === 'apply'
          ? await handle.startUpdate(applyUpdate, { args: [decision.input], waitForStage: WorkflowUpdateStage.ACCEPTED })
          : await handle.startUpdate(discardUpdate, { args: [decision.input], waitForStage: WorkflowUpdateStage.ACCEPTED });
      const result = update.result();
      // A refused decision settles at once; an accepted one may take the wait and more. No wait at all
      // (wait_seconds 0): a refusal still surfaces, an outcome already known is not waited for.
      if (waitMs <= 0) {
        await within(result, 20);
        return null;
      }
      return (await within(result, waitMs))?.value ?? null;
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) throw decisionProblem(err);
      if (err instanceof WorkflowNotFoundError) throw problems.conflict('invocation-not-pending', 'The invocation has ended.');
      throw err;
    }
  }

  /**
   * The run's final state within `waitMs`, else null. A run that did not end by itself (terminated or
   * cancelled from the Temporal UI, say) has no result: its state is then read by query.
   */
  async finished(invocationId: string, waitMs: number): Promise<AgentRunState | null> {
    const handle = this.client.workflow.getHandle<AgentRun>(invocationWorkflowId(invocationId));
    const ended = handle.result().catch((err: unknown) => {
      if (!(err instanceof WorkflowFailedError)) throw err;
      return handle.query(agentRunStateQuery);
    });
    return (await within(ended, waitMs))?.value ?? null;
  }

  /**
   * How the run's workflow stands in Temporal (RUNNING, COMPLETED, CANCELLED, TERMINATED, FAILED,
   * TIMED_OUT), or null when there is no such run: what its own state cannot say once it was cancelled
   * or terminated from outside.
   */
  async runStatus(invocationId: string): Promise<string | null> {
    try {
      const described = await within(this.client.workflow.getHandle(invocationWorkflowId(invocationId)).describe(), 10_000);
      if (!described) throw problems.unavailable('Temporal did not answer in time.', { retry_after: 5 });
      return described.value.status.name;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  }

  /** Asks the run's workflow to cancel (Temporal cancellation: cooperative, it may still end otherwise). */
  async cancel(invocationId: string): Promise<void> {
    try {
      const asked = await within(this.client.workflow.getHandle(invocationWorkflowId(invocationId)).cancel(), 10_000);
      if (!asked) throw problems.unavailable('Temporal did not answer in time.', { retry_after: 5 });
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }

  /** An invocation's state by its query (answered from history once it has ended), or null when there is no such run. */
  async state(invocationId: string): Promise<InvocationState | null> {
    try {
      return await this.client.workflow.getHandle(invocationWorkflowId(invocationId)).query(invocationStateQuery);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  }
}
