import type { RouteDef } from '../route.js';

/** `GET /metrics` (Prometheus). (Filled in by the metrics work.) */
export const metricsRoutes: RouteDef[] = [];
