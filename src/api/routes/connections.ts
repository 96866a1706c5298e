import { z } from 'zod';
import {
  callbackQuery,
  connectionCallback,
  deleteConnection,
  listConnections,
  projectConnection,
  startBody,
  startConnection,
  visibleConnection,
  type CallbackPage,
} from '../../operations/connections.js';
import {
  connectionSchema,
  deletedConnectionSchema,
  presentConnection,
  projectionSchema,
  startedConnectionSchema,
} from '../../presenters/connections.js';
import { connectionOutcomePage } from '../../presenters/sign-in-pages.js';
import {
  clientMetadataDocument,
  clientMetadataSchema,
  connectBody,
  connectServer,
  serverConnectionSchema,
} from '../../operations/server-connect.js';
import { artifactId } from '../artifact-access.js';
import type { AppContext } from '../context.js';
import { limitCredentialExchange } from '../middleware/rate-limit.js';
import { idParam, parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';
import { uuid } from '../../kernel/json/schemas.js';
import { list } from '../../presenters/schemas.js';

const authorizerParam = z.object({ authorizer_id: uuid() });
const listQuery = z.object({ authorizer_id: uuid().optional() });

/** The small page the person's browser lands on after the provider: no script, nothing loaded from elsewhere, not cached. */
function renderPage(ctx: AppContext, page: CallbackPage): void {
  ctx.status = page.status;
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = connectionOutcomePage(page);
}

/** OAuth connections (SPEC §2.5, §4.4): a person's consent, their connections, and projections for servers. */
export const connectionRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/connections/:authorizer_id/start',
    access: 'human',
    doc: { summary: 'Start an OAuth connection to an external authorizer', errors: [409], response: startedConnectionSchema },
    body: 'json',
    request: startBody,
    handler: async (ctx, _query, body) => {
      const { authorizer_id } = parse(authorizerParam, ctx.params, 'path');
      ctx.body = await startConnection(ctx, authorizer_id, body());
    },
  }),
  route({
    method: 'post',
    path: '/artifacts/:id/op/connect',
    access: 'human',
    doc: {
      summary: 'Connect to an MCP server protected by MCP authorization',
      description:
        "The first connect discovers the server's authorization (RFC 9728, RFC 8414), registers the platform there and makes the authorizer; every connect starts the caller's own connection. Send the person to connection.authorization_url.",
      errors: [409, 412, 502],
      response: serverConnectionSchema,
    },
    body: 'json',
    request: connectBody,
    handler: async (ctx, _query, body) => {
      ctx.body = await connectServer(ctx, artifactId(ctx), body());
    },
  }),
  {
    method: 'get',
    path: '/connections/:authorizer_id/client-metadata',
    access: 'public',
    doc: { summary: "A discovered authorizer's client ID metadata document", response: clientMetadataSchema },
    handler: async (ctx) => {
      const { authorizer_id } = parse(authorizerParam, ctx.params, 'path');
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = await clientMetadataDocument(ctx.services, authorizer_id);
    },
  },
  {
    method: 'get',
    path: '/connections/:authorizer_id/callback',
    access: 'public',
    doc: { summary: "The external authorizer's redirect back", produces: 'text/html' },
    // Where the platform exchanges an authorization code: limited per client IP like the token endpoints.
    guard: limitCredentialExchange,
    // The provider chooses what it appends (iss, session_state, scope, …): the page checks what it needs.
    query: 'foreign',
    handler: async (ctx) => {
      const { authorizer_id } = parse(authorizerParam, ctx.params, 'path');
      const query = callbackQuery.safeParse(ctx.query);
      if (!query.success)
        return renderPage(ctx, {
          status: 400,
          outcome: 'failed',
          title: 'Sign-in failed',
          message: `The provider's redirect is malformed (${query.error.issues[0]!.path.join('.')}). Start connecting again.`,
        });
      renderPage(ctx, await connectionCallback(ctx, authorizer_id, query.data));
    },
  },
  route({
    method: 'get',
    path: '/connections',
    access: 'authenticated',
    doc: { summary: 'List your connections', response: list(connectionSchema) },
    query: listQuery,
    handler: async (ctx, { authorizer_id }) => {
      ctx.body = await listConnections(ctx, authorizer_id);
    },
  }),
  {
    method: 'get',
    path: '/connections/:id',
    access: 'authenticated',
    doc: { summary: 'Read a connection', response: connectionSchema },
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      ctx.body = presentConnection(await visibleConnection(ctx, id));
    },
  },
  {
    method: 'delete',
    path: '/connections/:id',
    access: 'human',
    doc: { summary: 'Delete a connection', errors: [409], response: deletedConnectionSchema, status: 200 },
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      ctx.body = await deleteConnection(ctx, id);
    },
  },
  {
    method: 'post',
    path: '/connections/:id/project',
    access: 'artifact:invoke',
    doc: { summary: 'Project a connection for a server', response: projectionSchema },
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await projectConnection(ctx, id);
    },
  },
];
