import { listWorkspaceEvents } from '../../operations/events.js';
import { eventSchema, presentEvent, presentPage } from '../../presenters/index.js';
import { idParam, pageQuery, parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';
import { page } from '../../presenters/schemas.js';

export const eventRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/workspaces/:id/events',
    access: 'artifact:read',
    doc: { summary: "List a workspace's events", response: page(eventSchema) },
    query: pageQuery,
    handler: async (ctx, { limit, cursor }) => {
      const { id } = parse(idParam, ctx.params, 'path');
      ctx.body = presentPage(await listWorkspaceEvents(ctx, id, limit, cursor), presentEvent);
    },
  }),
];
