import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Scope } from '../../auth/principal.js';
import type { AppContext, AppState } from '../context.js';
import { authenticate, requireAdmin, requireHuman, requireScope } from '../middleware/authenticate.js';
import { parseBody, type BodyKind } from '../middleware/body.js';

/**
 * One REST route: its method, path, the access it needs and the body it takes. Every route of the API
 * is declared this way, so the access table is data that tests can walk.
 */
export interface RouteDef {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  /**
   * 'public': no token. A scope: any principal holding it. 'human': a person's own token, never a
   * server credential or API key (SPEC §5.4). 'admin': a human administrator. 'authenticated': any
   * valid token; what lies behind checks scopes itself (the MCP endpoint, per tool).
   */
  access: Scope | 'public' | 'human' | 'admin' | 'authenticated';
  body?: BodyKind;
  /** Checks made before anything else, authentication included (the MCP endpoint's Host and Origin). */
  guard?: (ctx: AppContext) => void;
  handler: (ctx: AppContext) => Promise<void> | void;
}

export function mountRoutes(router: Router<AppState>, routes: RouteDef[], bodyLimit: number): void {
  for (const route of routes) {
    const chain: Middleware[] = [];
    const { guard } = route;
    if (guard) chain.push(((ctx: AppContext, next: () => Promise<unknown>) => (guard(ctx), next())) as unknown as Middleware);
    if (route.access !== 'public') chain.push(authenticate as Middleware);
    if (route.access === 'admin') chain.push(requireAdmin as Middleware);
    else if (route.access === 'human') chain.push(requireHuman as Middleware);
    else if (route.access !== 'public' && route.access !== 'authenticated') chain.push(requireScope(route.access) as Middleware);
    if (route.body) chain.push(parseBody(route.body, bodyLimit) as Middleware);
    chain.push(route.handler as unknown as Middleware);
    router[route.method](route.path, ...chain);
  }
}
