import type { RouteDef } from '../route.js';

/** REST routes of the stream content type (issue #36). */
export const streamRoutes: RouteDef[] = [];
