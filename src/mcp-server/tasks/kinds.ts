import type { z } from 'zod';
import { Problem } from '../../kernel/errors/problem.js';
import { askOutcome, ask, bestPassage, type askInput } from '../../operations/ask.js';
import { visibleArtifact } from '../../operations/artifacts.js';
import { isAgentRun, readableInvocation } from '../../operations/agent-runs.js';
import { getInvocation } from '../../operations/invoke.js';
import type { OperationContext } from '../../operations/services.js';
import { presentWithItems, visibleCommit } from '../../operations/commits.js';
import type { McpTaskDoc } from '../../store/mcp-tasks.js';
import { settledStatuses } from '../../workflows/contracts/agent-run.js';
import { invocationWorkflowId } from '../../workflows/contracts/ids.js';
import { consoleCommitPage } from '../console-links.js';
import { extract, type ToolDef } from '../tools.js';
import { toolFailure, toolResult, type TaskState } from './protocol.js';

// What each long tool's task stands for: how it starts (the tool's own work, waiting only a moment),
// and how its state is read from the workflow and the store. A tool that finished within the moment
// answers its result as always; only work still running becomes a task.

/** How long a task-capable call waits before it answers with a task instead (a quick call stays a plain result). */
const momentSeconds = 1;

/** A started tool's plain result, or its task: what it stands for, and how long the work may last at most (a commit's wait for a person). */
type Started = { result: Record<string, unknown> } | { task: Pick<McpTaskDoc, '_id' | 'kind' | 'ref' | 'context'> & { lastsMs?: number } };

interface TaskKind {
  start(ctx: OperationContext, tool: ToolDef, input: Record<string, unknown>): Promise<Started>;
}

const running = (body: Record<string, unknown>) => body.status === 'running' && typeof body.invocation_id === 'string';
const invocationTask = (body: Record<string, unknown>, context?: Record<string, unknown>): Started => {
  const id = body.invocation_id as string;
  return { task: { _id: invocationWorkflowId(id), kind: 'invocation', ref: id, ...(context ? { context } : {}) } };
};

/** The tools that answer a task-capable client with a task when their work outlasts the moment. */
export const taskKinds: ReadonlyMap<string, TaskKind> = new Map<string, TaskKind>([
  [
    'commit_workspace',
    {
      // Always a task: the commit waits for a person, which takes longer than any moment.
      async start(ctx, tool, input) {
        const proposal = (await tool.run(ctx, input as never)) as { commit_id: string };
        const commit = await ctx.services.commits.get(proposal.commit_id);
        if (!commit) throw new Error(`commit ${proposal.commit_id} vanished after it was requested`);
        return { task: { _id: commit.workflow_id, kind: 'commit', ref: commit._id, lastsMs: commit.expiry_seconds * 1000 } };
      },
    },
  ],
  [
    'call_server_tool',
    {
      async start(ctx, tool, input) {
        const body = (await tool.run(ctx, { ...input, wait_seconds: input.wait_seconds ?? momentSeconds } as never)) as Record<
          string,
          unknown
        >;
        return running(body) ? invocationTask(body) : { result: body };
      },
    },
  ],
  [
    'extract_information',
    {
      async start(ctx, _tool, input) {
        const answer = (await extract(ctx, input as Parameters<typeof extract>[1], momentSeconds)) as Record<string, unknown>;
        return running(answer) ? invocationTask(answer) : { result: answer };
      },
    },
  ],
  [
    'ask',
    {
      async start(ctx, _tool, input) {
        const answer = (await ask(ctx, input as z.infer<typeof askInput>, momentSeconds)) as Record<string, unknown>;
        if (!running(answer)) return { result: answer };
        // The hits by id, score and container, never their text: it is read again, as visible then.
        const hits = (answer.passages as AskPassage[]).map(({ id, score, container }) => ({ id, score, container }));
        return invocationTask(answer, { question: answer.question, hits });
      },
    },
  ],
]);

type AskPassage = { id: string; title: string; container: { kind: string; id: string }; score: number; passage: string };

/**
 * The passages of an ask task's hits as the caller may read them now: an artifact deleted since, or no
 * longer visible to them, is left out, and each passage is taken from the artifact as it is.
 */
async function passagesNow(ctx: OperationContext, question: string, hits: Omit<AskPassage, 'title' | 'passage'>[]) {
  const found = await Promise.all(
    hits.map((hit) =>
      visibleArtifact(ctx, hit.id).then(
        ({ doc }) => ({ hit, doc }),
        () => null,
      ),
    ),
  );
  return found.flatMap((f) => (f ? [{ ...f.hit, title: f.doc.title, passage: bestPassage(f.doc, question) }] : []));
}

/** A commit's task: working while previewed and applied, input_required while a person must decide. */
async function commitState(ctx: OperationContext, doc: McpTaskDoc): Promise<TaskState> {
  const commit = await visibleCommit(ctx, doc.ref);
  const at = commit.updated_at;
  const page = consoleCommitPage(ctx.state.publicBase ?? ctx.services.config.apiUri, commit._id);
  switch (commit.state) {
    case 'previewing':
      return { status: 'working', statusMessage: 'Preparing the preview a person reviews.', lastUpdatedAt: at };
    case 'applying':
      return { status: 'working', statusMessage: `Approved; writing ${commit.applied} of ${commit.total} versions.`, lastUpdatedAt: at };
    case 'awaiting_approval':
      return {
        status: 'input_required',
        statusMessage: `Waiting for a person to approve or reject the commit at ${page}.`,
        lastUpdatedAt: at,
        inputRequests: {
          [`approval-${commit._id}`]: {
            method: 'elicitation/create',
            params: {
              mode: 'url',
              elicitationId: commit._id,
              url: page,
              message:
                `Review and approve (or reject) this commit in the platform's console, signed in as yourself: ${page}. ` +
                'Agents cannot approve; nothing is committed until a person does.',
            },
          },
        },
      };
    default:
      break;
  }
  const presented = await presentWithItems(ctx, commit);
  const outcome = {
    status: commit.state,
    commit_id: commit._id,
    state: commit.state,
    preview: commit.counts ? { counts: commit.counts } : null,
    review: page,
    decision: presented.decision,
    results: presented.results ?? null,
  };
  if (commit.state === 'committed')
    return { status: 'completed', lastUpdatedAt: at, statusMessage: 'Committed.', result: toolResult(outcome) };
  // Withdrawn by this task's cancel: the rejection carries the withdrawal's words, a person's never does.
  const withdrawn = doc.cancel_requested_at && commit.decision?.by === doc.subject && commit.decision.comment?.startsWith(withdrawalWords);
  if (withdrawn) return { status: 'cancelled', statusMessage: 'Withdrawn by its requester (tasks/cancel).', lastUpdatedAt: at };
  const why =
    commit.state === 'rejected'
      ? `A person rejected the commit${commit.decision?.comment ? `: ${commit.decision.comment}` : '.'}`
      : commit.state === 'expired'
        ? 'Nobody decided on the commit before it expired; nothing was committed.'
        : `The commit failed: ${commit.error ?? 'see the console'}.`;
  return { status: 'completed', lastUpdatedAt: at, statusMessage: why, result: toolFailure(why, outcome) };
}

/** Temporal's word for a run that did not end by itself, as the task's status. */
function externalEnd(runStatus: string | null): TaskState['status'] | null {
  if (runStatus === 'CANCELLED') return 'cancelled';
  if (runStatus === 'TERMINATED' || runStatus === 'TIMED_OUT' || runStatus === 'FAILED') return 'failed';
  return null;
}

/** An invocation's task: working until its run settles, then the tool's own answer. */
async function invocationState(ctx: OperationContext, doc: McpTaskDoc): Promise<TaskState> {
  const now = new Date();
  let body: Record<string, unknown>;
  let settled: boolean;
  if (doc.tool === 'ask') {
    const state = await readableInvocation(ctx, doc.ref);
    settled = isAgentRun(state) && settledStatuses.includes(state.status);
    const { question, hits } = doc.context as { question: string; hits: Omit<AskPassage, 'title' | 'passage'>[] };
    body = askOutcome(
      question,
      settled ? await passagesNow(ctx, question, hits) : [],
      doc.ref,
      settled && isAgentRun(state) ? state : null,
    );
  } else {
    body = (await getInvocation(ctx, doc.ref)) as unknown as Record<string, unknown>;
    settled = body.status !== 'running' && body.status !== 'applying';
  }
  if (settled) return { status: 'completed', lastUpdatedAt: now, result: toolResult(body) };
  const ended = externalEnd(await ctx.services.invocationWorkflows.runStatus(doc.ref));
  if (ended === 'cancelled') return { status: 'cancelled', statusMessage: 'The run was cancelled.', lastUpdatedAt: now };
  if (ended === 'failed')
    return { status: 'failed', lastUpdatedAt: now, error: { code: -32603, message: 'The run was stopped before it answered.' } };
  return { status: 'working', statusMessage: 'Running.', lastUpdatedAt: now };
}

/** Where a task stands now. A task whose underlying record the caller can no longer see reads as failed. */
export async function readTask(ctx: OperationContext, doc: McpTaskDoc): Promise<TaskState> {
  try {
    return doc.kind === 'commit' ? await commitState(ctx, doc) : await invocationState(ctx, doc);
  } catch (err) {
    if (err instanceof Problem && err.status === 404)
      return { status: 'failed', lastUpdatedAt: new Date(), error: { code: -32603, message: err.message } };
    throw err;
  }
}

/** How a withdrawal's decision begins: how a task tells its own cancel from a person's rejection. */
const withdrawalWords = 'Withdrawn by its requester (MCP tasks/cancel';

/**
 * Asks the task's work to stop: an invocation's workflow is cancelled; a commit is withdrawn (a signal
 * the commit workflow takes unless a person decided first, before its preview is ready or while it
 * awaits a person), recorded as a rejection in the person's name that names the credential that asked.
 * Cooperative, as the extension says: work already past that point ends as it ends.
 */
export async function cancelTask(ctx: OperationContext, doc: McpTaskDoc): Promise<void> {
  await ctx.services.mcpTasks.requestCancel(doc._id, new Date());
  if (doc.kind === 'invocation') return ctx.services.invocationWorkflows.cancel(doc.ref);
  const commit = await visibleCommit(ctx, doc.ref);
  const comment = `${withdrawalWords}, through ${doc.actor.kind} ${doc.actor.id}).`;
  await ctx.services.commitWorkflows.withdraw(commit, doc.subject, comment);
}
