import type { RouterContext } from '@koa/router';
import type { Principal } from '../identity/principal.js';
import type { Services } from '../operations/services.js';

export interface AppState {
  requestId: string;
  /** Who asks: set by `authenticate`, so absent on public routes and in the middleware that runs before it. */
  principal?: Principal;
  body?: unknown;
  /** The query string, parsed by the route's declared schema. */
  query?: Record<string, unknown>;
}

/** A request's context on any route, public ones included: the principal may be absent. */
export type AppContext = RouterContext<AppState, { services: Services }>;

/** The state behind `authenticate`: the principal is there. */
export interface AuthedState extends AppState {
  principal: Principal;
}

/**
 * A request's context on a route whose access is anything but 'public' (route.ts): `authenticate`
 * ran before the handler, so `ctx.state.principal` is the caller, never undefined.
 */
export type AuthedContext = AppContext & { state: AuthedState };
