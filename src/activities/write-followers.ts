import type { Context } from '@temporalio/activity';
import type { Db } from 'mongodb';
import type { Config } from '../kernel/config/env.js';
import { EventWorkflows } from '../workflow-clients/events.js';
import { IndexingWorkflows } from '../workflow-clients/indexing.js';

type ActivityClient = ReturnType<typeof Context.current>['client'];

/**
 * What a write an activity makes starts after it (its workspace event, its indexing), built once per
 * Temporal client the activities run with: imports and stream recordings write drafts in batches.
 */
export function writeFollowers(
  config: Config,
  db: Db,
): (client: ActivityClient) => { events: EventWorkflows; indexing: IndexingWorkflows } {
  const clients = new WeakMap<object, { events: EventWorkflows; indexing: IndexingWorkflows }>();
  return (client) => {
    let found = clients.get(client);
    if (!found) {
      found = {
        events: new EventWorkflows(client, config.TEMPORAL_TASK_QUEUE, config.EVENTS_CONTINUE_AS_NEW_AFTER, { db, inline: true }),
        indexing: new IndexingWorkflows(() => client, config.TEMPORAL_TASK_QUEUE),
      };
      clients.set(client, found);
    }
    return found;
  };
}
