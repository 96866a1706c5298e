import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Config } from '../kernel/config/env.js';
import { startOnce } from '../temporal/start-once.js';
import { within } from '../temporal/within.js';
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
    await startOnce<ChatTurnRun>(
      this.client,
      chatTurnType,
      {
        workflowId: chatTurnWorkflowId(input.turnId),
        taskQueue: this.config.TEMPORAL_TASK_QUEUE,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      },
      { eager: true },
    );
  }

  /** The turn once it ended within `waitMs`, else null (it goes on). */
  async settled(turnId: string, waitMs: number): Promise<ChatTurnState | null> {
    if (waitMs <= 0) return null;
    const done = await within(this.client.workflow.getHandle<ChatTurnRun>(chatTurnWorkflowId(turnId)).result(), waitMs);
    return done?.value ?? null;
  }

  /** The turn as its run has it now; null when there is no such run. */
  async state(turnId: string): Promise<ChatTurnState | null> {
    try {
      return await this.client.workflow.getHandle(chatTurnWorkflowId(turnId)).query(chatTurnStateQuery);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  }
}
