import { EventTail, storeEventSource } from '../events/tail.js';
import type { Principal } from '../identity/principal.js';
import { withDeadline } from '../store/deadline.js';
import type { EventDoc } from '../store/events.js';
import type { Page } from '../store/pagination.js';
import { visibleContainer } from './containers.js';
import type { OperationContext, Services } from './services.js';

/** A workspace's events: listed, and followed as they are recorded (the event stream). */

/** The workspace's events, most recent first, if the principal can see the workspace; 404 otherwise. */
export async function listWorkspaceEvents(ctx: OperationContext, id: string, limit: number, cursor?: string): Promise<Page<EventDoc>> {
  await visibleContainer(ctx, 'workspace', id);
  return ctx.services.events.recent(id, limit, cursor);
}

/**
 * A tail of the workspace's events after `after` (an event id), or after the newest event when there
 * is none; that first read has its deadline.
 */
export async function workspaceEventTail(
  services: Services,
  workspaceId: string,
  after: string | undefined,
  deadlineMs: number,
): Promise<EventTail> {
  const source = storeEventSource(services.events);
  return new EventTail(
    source,
    workspaceId,
    after ?? (await withDeadline('events.newest', EventTail.newestId(source, workspaceId), deadlineMs)),
  );
}

/** Whether the principal, as the credentials are now, still sees the workspace a stream follows. */
export async function stillFollows(services: Services, principal: Principal, workspaceId: string): Promise<boolean> {
  return (await services.containers.get('workspace', principal, workspaceId)) !== null;
}
