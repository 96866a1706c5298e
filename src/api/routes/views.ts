import type { RouteDef } from '../route.js';

/** REST routes of the view content type (issue #36). */
export const viewRoutes: RouteDef[] = [];
