import type { Client } from '@temporalio/client';
import { v7 as uuidv7 } from 'uuid';
import { RunKind, WorkspaceId } from '../temporal/search-attributes.js';
import { workspaceEventsType, type WorkspaceEvents } from '../workflows/contracts/workspace-events.js';
import { artifactEventSignal } from '../workflows/contracts/workspace-events.js';
import type { EventKind, WorkspaceEvent } from '../events/types.js';

import { eventsWorkflowId } from '../workflows/contracts/ids.js';

/** Delivers artifact lifecycle events to the workspace's event workflow, starting it on first use. */
export class EventRunner {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly continueAsNewAfter: number,
  ) {}

  /** `id`: a fixed event id, for a publisher that may run again (an activity retried): the event is recorded once. */
  async publish(
    kind: EventKind,
    workspaceId: string,
    artifactId: string,
    actor: string,
    changed?: string[],
    id?: string,
  ): Promise<WorkspaceEvent> {
    const event: WorkspaceEvent = {
      id: id ?? uuidv7(),
      kind,
      workspace_id: workspaceId,
      artifact_id: artifactId,
      actor,
      occurred_at: new Date().toISOString(),
      ...(changed ? { changed } : {}),
    };
    await this.client.workflow.signalWithStart<WorkspaceEvents, [WorkspaceEvent]>(workspaceEventsType, {
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
