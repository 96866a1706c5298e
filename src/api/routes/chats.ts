import type { RouteDef } from '../route.js';

/** REST routes of the chat content type (issue #36). */
export const chatRoutes: RouteDef[] = [];
