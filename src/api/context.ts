import type { RouterContext } from '@koa/router';
import type { Principal } from '../auth/principal.js';
import type { Services } from '../services.js';

export interface AppState {
  requestId: string;
  principal?: Principal;
  body?: unknown;
}

export type AppContext = RouterContext<AppState, { services: Services }>;
