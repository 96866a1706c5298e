import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Config } from '../kernel/config/env.js';
import { ArtifactId, PrincipalId, RunKind, WorkspaceId } from '../temporal/search-attributes.js';
import {
  stopStreamSignal,
  streamSessionType,
  streamWorkflowId,
  type StreamSession,
  type StreamSessionInput,
} from '../workflows/contracts/stream-session.js';

/** The longest a start or a stop waits for Temporal: past it the API answers 503 (every call has a deadline). */
const temporalDeadlineMs = 10_000;

/** The API's side of a stream's live sessions: starts one, stops it. */
export class StreamWorkflows {
  constructor(
    private readonly client: () => Client,
    private readonly config: Config,
  ) {}

  /** Starts the stream's session; false when one is running already (the workflow id is the stream's). */
  async start(input: StreamSessionInput): Promise<boolean> {
    try {
      const client = this.client();
      await client.withDeadline(Date.now() + temporalDeadlineMs, () =>
        client.workflow.start<StreamSession>(streamSessionType, {
          workflowId: streamWorkflowId(input.streamId),
          taskQueue: this.config.TEMPORAL_TASK_QUEUE,
          // A new session once the last one has closed, however it ended; never two at once.
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          args: [input],
          staticSummary: `Stream ${input.streamId}: RTMP session ${input.sessionId}`,
          typedSearchAttributes: [
            { key: WorkspaceId, value: input.workspaceId },
            { key: ArtifactId, value: input.streamId },
            { key: PrincipalId, value: input.principal.subject },
            { key: RunKind, value: 'stream' },
          ],
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw err;
    }
  }

  /** Asks the running session to stop; false when none runs. */
  async stop(streamId: string): Promise<boolean> {
    try {
      const client = this.client();
      await client.withDeadline(Date.now() + temporalDeadlineMs, () =>
        client.workflow.getHandle(streamWorkflowId(streamId)).signal(stopStreamSignal),
      );
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }
}
