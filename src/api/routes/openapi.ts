import type { RouteDef } from '../route.js';

/** `GET /openapi.json` and the reference page at `/docs`. (Filled in by the OpenAPI work.) */
export const openapiRoutes: RouteDef[] = [];
