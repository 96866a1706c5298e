import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { z } from 'zod';
import type { Scope } from '../identity/principal.js';
import type { AppContext, AppState, AuthedContext } from './context.js';
import { authenticate, requireAdmin, requireHuman, requireScope } from './middleware/authenticate.js';
import { parseBody, type BodyKind } from './middleware/body.js';
import { checkPathText, parse, parseQuery, type QuerySchema } from './validate.js';

/**
 * What the OpenAPI document says of a route beyond what its declaration already tells (method,
 * path, access, query and request schemas). All optional: a route without it is still documented.
 */
export interface RouteDoc {
  summary?: string;
  description?: string;
  /** Default: the path's first segment. */
  tags?: string[];
  /** The success status (default: 204 for DELETE, 200 otherwise) and what it holds. */
  status?: number;
  response?: z.ZodType;
  responseDescription?: string;
  /** The success answer's media type when it is not JSON (a page, an event stream, a redirect's none). */
  produces?: string;
  /** Problem statuses beyond those the access, path, query and body imply (409, 412, 503...). */
  errors?: number[];
  /** An example request body, valid against `request`. */
  example?: unknown;
}

/**
 * Who may call a route. 'public': no token. A scope: any principal holding it. 'human': a person's own
 * token, never a server credential or API key (SPEC §5.4). 'admin': a human administrator.
 * 'authenticated': any valid token; what lies behind checks scopes itself (the MCP endpoint, per tool).
 */
export type Access = Scope | 'public' | 'human' | 'admin' | 'authenticated';

/**
 * The context a route's handler gets: every access but 'public' runs `authenticate` first, so its
 * handler's `ctx.state.principal` is a `Principal`, not optional.
 */
export type ContextFor<A extends Access> = A extends 'public' ? AppContext : AuthedContext;

/**
 * One REST route: its method, path, the access it needs, the query and body it takes. Every route of
 * the API is declared this way, so the access table is data that tests can walk.
 */
interface RouteShape<Q extends QuerySchema, B extends z.ZodType, A extends Access> {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  access: A;
  /**
   * The query parameters it takes, each at most once; any other is a 400 naming it. None declared:
   * no query parameter at all. 'foreign': a redirect target whose parameters a third party chooses
   * (an OAuth provider's callback), which the handler reads from ctx.query itself.
   */
  query?: Q | 'foreign';
  body?: BodyKind;
  /** Bytes this route's body may have when more than MAX_BODY_BYTES (the codec server's batches of payloads). */
  bodyLimit?: number;
  /**
   * The body's schema: the handler's `body()` validates with it (a 400 naming every bad field), and
   * the OpenAPI document shows it, so the two cannot differ.
   */
  request?: B;
  doc?: RouteDoc;
  /** Checks made before anything else, authentication included (the MCP endpoint's Host and Origin). */
  guard?: (ctx: AppContext) => void;
  /**
   * `ctx`: an AuthedContext unless the route is public. `query`: the parsed query string (an empty
   * object when the route declares none). `body()`: the body validated by `request` (the raw parsed
   * body when the route declares none), called where the handler wants its 400, so that path checks
   * made before it still come first.
   */
  handler(ctx: ContextFor<A>, query: z.output<Q>, body: () => z.output<B>): Promise<void> | void;
}

/**
 * A route of the table. A union by `access`, so that an object literal in a `RouteDef[]` gets the
 * handler context its access implies (AuthedContext for every access but 'public').
 */
export type RouteDef<Q extends QuerySchema = QuerySchema, B extends z.ZodType = z.ZodType> =
  RouteShape<Q, B, 'public'> | RouteShape<Q, B, Exclude<Access, 'public'>>;

/** A route with a query or request schema, so that its handler's `query` and `body()` are typed from them. */
export const route = <A extends Access, Q extends QuerySchema = QuerySchema, B extends z.ZodType = z.ZodType>(
  def: RouteShape<Q, B, A>,
): RouteDef => def as unknown as RouteDef;

/** The request body, validated by the route's declared schema. */
function bodyOf(route: RouteDef, ctx: AppContext): unknown {
  return route.request ? parse(route.request, ctx.state.body, 'body') : ctx.state.body;
}

/** The route table each router was mounted with, for the OpenAPI document (app.ts is not imported from the routes). */
const tables = new WeakMap<object, readonly RouteDef[]>();
export const mountedRoutes = (router: object): readonly RouteDef[] => tables.get(router) ?? [];

/** Parses the query string into ctx.state.query by the route's declaration; path parameters must be text. */
function queryOf(query: RouteDef['query']) {
  return (ctx: AppContext, next: () => Promise<unknown>) => {
    checkPathText(ctx.params);
    ctx.state.query = query === 'foreign' ? {} : parseQuery(query, ctx.query);
    return next();
  };
}

/** `bodyLimit`: MAX_BODY_BYTES; `importLimit`: IMPORT_MAX_BYTES, for bodies of kind 'import'. */
export function mountRoutes(router: Router<AppState>, routes: RouteDef[], bodyLimit: number, importLimit = bodyLimit): void {
  tables.set(router, routes);
  for (const route of routes) {
    const chain: Middleware[] = [];
    const { guard, query } = route;
    if (guard) chain.push(((ctx: AppContext, next: () => Promise<unknown>) => (guard(ctx), next())) as unknown as Middleware);
    if (route.access !== 'public') chain.push(authenticate as Middleware);
    if (route.access === 'admin') chain.push(requireAdmin as Middleware);
    else if (route.access === 'human') chain.push(requireHuman as Middleware);
    else if (route.access !== 'public' && route.access !== 'authenticated') chain.push(requireScope(route.access) as Middleware);
    // The query before the body: a request the route cannot take is refused before its body is read.
    chain.push(queryOf(query) as unknown as Middleware);
    const limit = route.body === 'import' ? importLimit : Math.max(bodyLimit, route.bodyLimit ?? 0);
    if (route.body) chain.push(parseBody(route.body, limit) as Middleware);
    // The handler's context type follows its access: authenticate (above) set the principal unless public.
    const handler = route.handler as (ctx: AppContext, query: unknown, body: () => unknown) => Promise<void> | void;
    chain.push(((ctx: AppContext) => handler(ctx, ctx.state.query ?? {}, () => bodyOf(route, ctx))) as unknown as Middleware);
    router[route.method](route.path, ...chain);
  }
}
