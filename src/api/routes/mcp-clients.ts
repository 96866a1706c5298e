import type { RouteDef } from '../route.js';

/** REST routes of the mcp-client content type (issue #36). */
export const mcpClientRoutes: RouteDef[] = [];
