import type { RouterContext } from '@koa/router';
import type { Principal } from '../identity/principal.js';
import type { Services } from '../operations/services.js';

export interface AppState {
  requestId: string;
  principal?: Principal;
  body?: unknown;
  /** The query string, parsed by the route's declared schema. */
  query?: Record<string, unknown>;
}

export type AppContext = RouterContext<AppState, { services: Services }>;
