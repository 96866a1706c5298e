import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Refresher } from '../connections/projection.js';
import { refreshUpdate } from '../workflows/contracts/connection-flow.js';
import { connectionWorkflowId } from '../workflows/contracts/ids.js';

/** A Refresher that asks the connection's workflow (`connectionFlow`) to refresh: it serialises refreshes. */
export function workflowRefresher(client: () => Client): Refresher {
  return async (connectionId, seenVersion) => {
    try {
      await client()
        .workflow.getHandle(connectionWorkflowId(connectionId))
        .executeUpdate(refreshUpdate, { args: [{ seenVersion }] });
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      // No run keeps the connection any more: what the record says is all there is.
    }
  };
}
