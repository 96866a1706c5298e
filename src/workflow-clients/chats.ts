import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Config } from '../kernel/config/env.js';
import { startOnce } from '../temporal/start-once.js';
import { within } from '../temporal/within.js';
import { problems } from '../kernel/errors/problem.js';

/** How long a read of a turn's state may take (a query needs a worker to answer it). */
const queryDeadlineMs = 10_000;
/** How long starting a turn's run may take. */
const startDeadlineMs = 10_000;
import {
  chatTurnStateQuery,
  chatTurnType,
  chatTurnWorkflowId,
  type ChatTurnInput,
  type ChatTurnRun,
  type ChatTurnState,
} from '../workflows/contracts/chat-turn.js';

/** The API's side of chat turns: start one (or attach to it, for a retried request), wait for it, read it. */
export class ChatWorkflows {
  constructor(
    private readonly client: Client,
    private readonly config: Config,
  ) {}

  async start(input: ChatTurnInput): Promise<void> {
    // The start is a call to Temporal like any other: it has a deadline.
    await this.client.withDeadline(Date.now() + startDeadlineMs, () =>
      startOnce<ChatTurnRun>(
        this.client,
        chatTurnType,
        {
          workflowId: chatTurnWorkflowId(input.turnId),
          taskQueue: this.config.TEMPORAL_TASK_QUEUE,
          args: [input],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        },
        { eager: true },
      ),
    );
  }

  /** The turn once it ended within `waitMs`, else null (it goes on). */
  async settled(turnId: string, waitMs: number): Promise<ChatTurnState | null> {
    if (waitMs <= 0) return null;
    const done = await within(this.client.workflow.getHandle<ChatTurnRun>(chatTurnWorkflowId(turnId)).result(), waitMs);
    return done?.value ?? null;
  }

  /** The turn as its run has it now; null when there is no such run; 503 when Temporal does not answer in time. */
  async state(turnId: string): Promise<ChatTurnState | null> {
    try {
      const answered = await within(this.client.workflow.getHandle(chatTurnWorkflowId(turnId)).query(chatTurnStateQuery), queryDeadlineMs);
      if (!answered) throw problems.unavailable(`The chat turn ${turnId} could not be read in time; retry shortly.`);
      return answered.value;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  }
}
