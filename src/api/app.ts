import Router from '@koa/router';
import Koa from 'koa';
import type { Services } from '../operations/services.js';
import type { AppState } from './context.js';
import { cors } from './middleware/cors.js';
import { problemResponses } from './middleware/problems.js';
import { requestLog } from './middleware/request-log.js';
import { adminRoutes } from './routes/admin.js';
import { artifactRoutes } from './routes/artifacts.js';
import { authRoutes } from './routes/auth.js';
import { containerRoutes } from './routes/containers.js';
import { eventRoutes } from './routes/events.js';
import { eventStreamRoutes } from './routes/event-stream.js';
import { healthRoutes } from './routes/health.js';
import { mountRoutes, type RouteDef } from './route.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { consentRoutes } from './routes/consents.js';
import { secretRoutes } from './routes/secrets.js';
import { serverCredentialRoutes } from './routes/server-credentials.js';
import { tokenRoutes } from './routes/token.js';
import { searchRoutes } from './routes/search.js';
import { commitRoutes } from './routes/commits.js';
import { importRoutes } from './routes/imports.js';
import { relayRoutes } from './routes/relay.js';
import { manageRoutes } from './routes/manage.js';
import { versionRoutes } from './routes/versions.js';
import { nameRoutes } from './routes/names.js';
import { revisionRoutes } from './routes/revisions.js';
import { mcpRoutes } from './routes/mcp.js';
import { oauthMetadataRoutes } from './routes/oauth-metadata.js';
import { oauthRoutes } from './routes/oauth.js';
import { oauthExternalRoutes } from './routes/oauth-external.js';
import { oauthConsentRoutes } from './routes/oauth-consents.js';
import { mcpServerRoutes } from './routes/mcp-servers.js';
import { invocationRoutes } from './routes/invocations.js';
import { connectionRoutes } from './routes/connections.js';
import { consoleRoutes } from './routes/console.js';
import { subscriptionRoutes } from './routes/subscriptions.js';
import { metricsRoutes } from './routes/metrics.js';
import { openapiRoutes } from './routes/openapi.js';
import { codecRoutes } from './routes/codec.js';
import { chatRoutes } from './routes/chats.js';
import { viewRoutes } from './routes/views.js';
import { streamRoutes } from './routes/streams.js';
import { mcpClientRoutes } from './routes/mcp-clients.js';
import { httpMetrics } from '../observability/http-metrics.js';
import { httpTracing } from '../observability/http-tracing.js';

/** The whole REST surface, one table: tests walk it to check every route's access. */
export const routes: RouteDef[] = [
  ...healthRoutes,
  ...metricsRoutes,
  ...openapiRoutes,
  ...codecRoutes,
  ...authRoutes,
  ...tokenRoutes,
  ...adminRoutes,
  ...serverCredentialRoutes,
  ...apiKeyRoutes,
  ...consentRoutes,
  ...secretRoutes,
  ...connectionRoutes,
  ...containerRoutes('workspace'),
  ...containerRoutes('collection'),
  ...eventRoutes,
  ...eventStreamRoutes,
  ...subscriptionRoutes,
  ...searchRoutes,
  ...artifactRoutes,
  ...versionRoutes,
  ...nameRoutes,
  ...revisionRoutes,
  ...manageRoutes,
  ...chatRoutes,
  ...viewRoutes,
  ...streamRoutes,
  ...mcpClientRoutes,
  ...commitRoutes,
  ...importRoutes,
  ...relayRoutes,
  ...mcpServerRoutes,
  ...invocationRoutes,
  ...mcpRoutes,
  ...oauthMetadataRoutes,
  ...oauthRoutes,
  ...oauthExternalRoutes,
  ...oauthConsentRoutes,
  ...consoleRoutes,
];

export function createApp(services: Services): Koa<AppState, { services: Services }> {
  const app = new Koa<AppState, { services: Services }>({ proxy: false });
  app.context.services = services;
  app.silent = true; // errors are logged by our own middleware, with the request id
  const router = new Router<AppState>();
  mountRoutes(router, routes, services.config.MAX_BODY_BYTES, services.config.IMPORT_MAX_BYTES);
  app.use(httpTracing); // outermost: the request's span covers everything, and its logs carry the trace id
  app.use(requestLog as Koa.Middleware);
  app.use(httpMetrics);
  app.use(problemResponses as Koa.Middleware);
  app.use(cors as Koa.Middleware);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
