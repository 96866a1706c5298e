// What a call takes and answers, read from the generated `paths` (./openapi.ts): the path's parameters,
// its query, its JSON body, and the JSON body of its success statuses.
import type { paths } from './openapi.js';

export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** The operation `method path` as the OpenAPI document describes it (never when there is none). */
export type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The paths that have a `method` operation. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: [Operation<P, M>] extends [never] ? never : P;
}[keyof paths];

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;
type Responses<P extends keyof paths, M extends Method> = Operation<P, M> extends { responses: infer R } ? R : never;
type BodyOf<R> = R extends { content: { 'application/json': infer B } }
  ? B
  : R extends { content: { [type: string]: infer T } }
    ? T
    : undefined;

/** The body of a success answer (any 2xx status the document declares): JSON parsed, other types as text, none as undefined. */
export type Answer<P extends keyof paths, M extends Method> = {
  [S in keyof Responses<P, M> & SuccessStatus]: BodyOf<Responses<P, M>[S]>;
}[keyof Responses<P, M> & SuccessStatus];

type Parameters<P extends keyof paths, M extends Method> = Operation<P, M> extends { parameters: infer X } ? X : never;

/** The path's parameters (`{id}` and the like), or never. */
export type PathParams<P extends keyof paths, M extends Method> = Parameters<P, M> extends { path: infer Q } ? Q : never;

/** The query parameters, or never. */
export type QueryParams<P extends keyof paths, M extends Method> = Parameters<P, M> extends { query?: infer Q } ? NonNullable<Q> : never;

/** The JSON request body, or never. */
export type RequestBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends {
    requestBody?: { content: { 'application/json': infer B } };
  }
    ? B
    : never;

/** What every call may take, besides its parameters and body. */
export interface CallOptions {
  /** Milliseconds this call may take in all (a token exchange, a retry and reading the answer included); the client's default otherwise. */
  timeoutMs?: number;
  /** Cancels the call. */
  signal?: AbortSignal;
  /** Acts for this person (`X-On-Behalf-Of`): a server credential or API key they consented to. */
  onBehalfOf?: string;
  /** More request headers (`If-Match`, `Idempotency-Key`, …). */
  headers?: Record<string, string>;
}

/** The options of `method path`: `params` when the path has some, `body` when the operation takes one. */
export type RequestOptions<P extends keyof paths, M extends Method> = CallOptions &
  ([PathParams<P, M>] extends [never] ? { params?: undefined } : { params: PathParams<P, M> }) &
  ([QueryParams<P, M>] extends [never] ? { query?: undefined } : { query?: QueryParams<P, M> }) &
  ([RequestBody<P, M>] extends [never]
    ? { body?: undefined }
    : Operation<P, M> extends { requestBody: unknown }
      ? { body: RequestBody<P, M> }
      : { body?: RequestBody<P, M> });

/** The options argument: required when something in it is. */
export type OptionsArgument<O> = {} extends O ? [options?: O] : [options: O];

/** An answer with its status and headers (an `ETag`, a `Location`). */
export interface PlatformResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}
