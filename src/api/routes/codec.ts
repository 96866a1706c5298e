import type { RouteDef } from '../route.js';

/** The codec server for the Temporal UI and CLI: `POST /codec/decode` and `/codec/encode`. (Filled in by the codec work.) */
export const codecRoutes: RouteDef[] = [];
