// The client: typed calls of the REST API (`client.post('/workspaces', { body })` answers a Workspace),
// each under a deadline, with the token of its credentials, one retry with a fresh token after a 401,
// and errors thrown as ProblemError, TokenError, DeadlineError or ConnectionError.
import { tokenSource, type Credentials, type TokenSource } from './credentials.js';
import { ConnectionError, DeadlineError, ProblemError } from './errors.js';
import type { paths } from './openapi.js';
import type { Answer, CallOptions, Method, OptionsArgument, PathsWith, PlatformResponse, RequestOptions } from './types.js';

export interface PlatformClientOptions {
  /** The platform's base URL, such as `http://localhost:8080`. */
  baseUrl: string;
  credentials: Credentials;
  /** Milliseconds a call may take in all, unless the call says otherwise (default 30 000). */
  timeoutMs?: number;
  /** Exchange a token this many seconds before it expires (default 60, as SPEC §8 asks of servers). */
  refreshBeforeSeconds?: number;
  fetch?: typeof fetch;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
}

/** What a call is made of once its types have been checked. */
type Untyped = CallOptions & { params?: Record<string, string | number>; query?: Record<string, unknown>; body?: unknown };

export class PlatformClient {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;
  private tokens: TokenSource;
  private onBehalfOf: string | undefined;

  constructor(private readonly options: PlatformClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.tokens = tokenSource(options.credentials, {
      refreshBeforeSeconds: options.refreshBeforeSeconds ?? 60,
      now: options.now ?? Date.now,
    });
  }

  /** The same client acting for a person who consented to its credential (`X-On-Behalf-Of`); it shares the token. */
  forPerson(personId: string): PlatformClient {
    const client = new PlatformClient(this.options);
    client.tokens = this.tokens;
    client.onBehalfOf = personId;
    return client;
  }

  /** The bearer token the next call sends (exchanged first if needed), for a stream or a call this client does not make. */
  async token(options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<string> {
    return this.withDeadline('POST', '(token)', options, (signal) =>
      this.tokens.token({ fetch: this.fetch, baseUrl: this.baseUrl, signal }),
    );
  }

  get<P extends PathsWith<'get'>>(path: P, ...options: OptionsArgument<RequestOptions<P, 'get'>>): Promise<Answer<P, 'get'>> {
    return this.body('get', path, options[0]);
  }
  post<P extends PathsWith<'post'>>(path: P, ...options: OptionsArgument<RequestOptions<P, 'post'>>): Promise<Answer<P, 'post'>> {
    return this.body('post', path, options[0]);
  }
  put<P extends PathsWith<'put'>>(path: P, ...options: OptionsArgument<RequestOptions<P, 'put'>>): Promise<Answer<P, 'put'>> {
    return this.body('put', path, options[0]);
  }
  patch<P extends PathsWith<'patch'>>(path: P, ...options: OptionsArgument<RequestOptions<P, 'patch'>>): Promise<Answer<P, 'patch'>> {
    return this.body('patch', path, options[0]);
  }
  delete<P extends PathsWith<'delete'>>(path: P, ...options: OptionsArgument<RequestOptions<P, 'delete'>>): Promise<Answer<P, 'delete'>> {
    return this.body('delete', path, options[0]);
  }

  /** Any call, answered with its status and headers too (an `ETag` to send back as `If-Match`). */
  send<M extends Method, P extends PathsWith<M>>(
    method: M,
    path: P,
    ...options: OptionsArgument<RequestOptions<P, M>>
  ): Promise<PlatformResponse<Answer<P, M>>> {
    return this.call(method, path, (options[0] ?? {}) as Untyped) as Promise<PlatformResponse<Answer<P, M>>>;
  }

  private async body(method: Method, path: keyof paths, options: unknown): Promise<never> {
    return (await this.call(method, path, (options ?? {}) as Untyped)).body as never;
  }

  private call(method: Method, template: string, options: Untyped): Promise<PlatformResponse<unknown>> {
    const verb = method.toUpperCase();
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = options.params?.[name];
      if (value === undefined) throw new TypeError(`${verb} ${template}: the path parameter ${name} is missing`);
      return encodeURIComponent(String(value));
    });
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(options.query ?? {}))
      for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined && item !== null) query.append(key, String(item));
    const search = String(query);
    const url = `${this.baseUrl}${path}${search ? `?${search}` : ''}`;
    const onBehalfOf = options.onBehalfOf ?? this.onBehalfOf;

    return this.withDeadline(verb, path, options, async (signal) => {
      for (let attempt = 0; ; attempt++) {
        const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
        headers.authorization = `Bearer ${await this.tokens.token({ fetch: this.fetch, baseUrl: this.baseUrl, signal })}`;
        if (options.body !== undefined) headers['content-type'] = 'application/json';
        if (onBehalfOf) headers['x-on-behalf-of'] = onBehalfOf;
        let res: Response;
        try {
          res = await this.fetch(url, {
            method: verb,
            headers,
            body: options.body === undefined ? undefined : JSON.stringify(options.body),
            signal,
          });
        } catch (err) {
          if (signal.aborted) throw signal.reason;
          throw new ConnectionError(verb, path, err);
        }
        const text = await res.text();
        if (res.status === 401 && attempt === 0 && this.tokens.renew()) continue;
        if (!res.ok) throw ProblemError.from(res.status, text, res.headers, verb, path);
        const json = /[/+]json\b/i.test(res.headers.get('content-type') ?? '');
        return { status: res.status, headers: res.headers, body: text === '' ? undefined : json ? JSON.parse(text) : text };
      }
    });
  }

  /** Runs `work` with a signal that aborts when the deadline passes (DeadlineError) or the caller's signal does. */
  private async withDeadline<T>(
    method: string,
    path: string,
    options: { timeoutMs?: number; signal?: AbortSignal },
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DeadlineError(timeoutMs, method, path)), timeoutMs);
    const outer = options.signal;
    const onAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    else outer?.addEventListener('abort', onAbort, { once: true });
    try {
      return await work(controller.signal);
    } catch (err) {
      // fetch and body reads reject with their own AbortError: the reason the signal was aborted for is the one to throw.
      throw controller.signal.aborted ? controller.signal.reason : err;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
  }
}
