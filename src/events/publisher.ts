import type { Client } from '@temporalio/client';
import { v7 as uuidv7 } from 'uuid';
import { RunKind, WorkspaceId } from '../temporal/search-attributes.js';
import { artifactEventSignal, workspaceEvents } from '../workflows/workspace-events.js';
import type { EventKind, WorkspaceEvent } from './types.js';

export const eventsWorkflowId = (workspaceId: string) => `workspace-events-${workspaceId}`;

/** Delivers artifact lifecycle events to the workspace's event workflow, starting it on first use. */
export class EventPublisher {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly continueAsNewAfter: number,
  ) {}

  async publish(kind: EventKind, workspaceId: string, artifactId: string, actor: string, changed?: string[]): Promise<WorkspaceEvent> {
    const event: WorkspaceEvent = {
      id: uuidv7(),
      kind,
      workspace_id: workspaceId,
      artifact_id: artifactId,
      actor,
      occurred_at: new Date().toISOString(),
      ...(changed ? { changed } : {}),
    };
    await this.client.workflow.signalWithStart(workspaceEvents, {
      workflowId: eventsWorkflowId(workspaceId),
      taskQueue: this.taskQueue,
      args: [{ workspaceId, continueAsNewAfter: this.continueAsNewAfter }],
      signal: artifactEventSignal,
      signalArgs: [event],
      typedSearchAttributes: [
        { key: WorkspaceId, value: workspaceId },
        { key: RunKind, value: 'workspace-events' },
      ],
    });
    return event;
  }
}
