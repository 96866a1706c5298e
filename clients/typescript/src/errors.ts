// The errors a call throws: the platform's problem+json answers (RFC 9457) as ProblemError, the token
// endpoint's OAuth errors as TokenError, a passed deadline as DeadlineError, no answer as ConnectionError.
// Each is a PlatformError, naming the method and path it was for.
import type { components } from './openapi.js';

/** RFC 9457 problem details, as the platform sends every error. */
export type Problem = components['schemas']['Problem'];

/** The stable prefix of a problem `type`; the rest is the slug (`validation-error`, `not-found`, …). */
export const problemTypePrefix = 'urn:platform:problem:';

const previewChars = 2000;

export class PlatformError extends Error {
  constructor(
    message: string,
    readonly method: string,
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** An answer of 400 or above. Switch on `slug` (or `type`), which is stable; `detail` is for people. */
export class ProblemError extends PlatformError {
  readonly status: number;
  readonly type: string;
  /** `type` without its `urn:platform:problem:` prefix, or the type itself when it has none. */
  readonly slug: string;
  readonly title: string;
  readonly detail: string | undefined;
  /** On validation-error: every field that was refused. */
  readonly invalidParams: { name: string; reason: string }[];
  /** The request's id, as the platform logged it (`X-Request-Id`). */
  readonly requestId: string | undefined;
  /** Seconds to wait before trying again (`Retry-After`, on 429 and 503). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly problem: Problem,
    method: string,
    path: string,
    headers?: Headers,
  ) {
    super(`${method} ${path}: ${problem.status} ${problem.title}${problem.detail ? `: ${problem.detail}` : ''}`, method, path);
    this.status = problem.status;
    this.type = problem.type;
    this.slug = problem.type.startsWith(problemTypePrefix) ? problem.type.slice(problemTypePrefix.length) : problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.invalidParams = problem.invalid_params ?? [];
    this.requestId = (typeof problem.request_id === 'string' ? problem.request_id : undefined) ?? headers?.get('x-request-id') ?? undefined;
    const retry = Number(headers?.get('retry-after') ?? NaN);
    this.retryAfterSeconds = Number.isFinite(retry) ? retry : undefined;
  }

  /** The error of an answer: its problem+json, or one made of its status and text when it sent none (a proxy's page). */
  static from(status: number, text: string, headers: Headers, method: string, path: string): ProblemError {
    let problem: Problem | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      if (isProblem(parsed)) problem = parsed;
    } catch {
      // not JSON: described below
    }
    problem ??= { type: 'about:blank', title: `HTTP ${status}`, status, detail: text.slice(0, previewChars) || undefined };
    return new ProblemError(problem, method, path, headers);
  }

  /** The MCP tool result a server returns instead of crashing. */
  toToolResult(): { isError: true; content: { type: 'text'; text: string }[] } {
    return { isError: true, content: [{ type: 'text', text: `${this.detail ?? this.title} (${this.slug}, ${this.status})` }] };
  }
}

function isProblem(value: unknown): value is Problem {
  const v = value as Partial<Problem> | null;
  return !!v && typeof v === 'object' && typeof v.type === 'string' && typeof v.title === 'string' && typeof v.status === 'number';
}

/** The token endpoint refused the credentials (OAuth's `{error, error_description}`, RFC 6749 §5.2). */
export class TokenError extends PlatformError {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string | undefined,
    method: string,
    path: string,
  ) {
    super(`${method} ${path}: ${status} ${error}${description ? `: ${description}` : ''}`, method, path);
  }
}

/** The call did not finish within its deadline; nothing is known of whether the platform acted on it. */
export class DeadlineError extends PlatformError {
  constructor(
    readonly timeoutMs: number,
    method: string,
    path: string,
  ) {
    super(`${method} ${path}: no answer within ${timeoutMs} ms`, method, path);
  }
}

/** The platform could not be reached (refused, reset, name not found). */
export class ConnectionError extends PlatformError {
  constructor(method: string, path: string, cause: unknown) {
    super(`${method} ${path}: ${(cause as Error)?.message ?? 'the platform could not be reached'}`, method, path, { cause });
  }
}
