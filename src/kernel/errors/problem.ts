/**
 * RFC 9457 problem details. Every error that leaves the API is one of these, with a stable `type`
 * (`urn:platform:problem:<slug>`) that clients can switch on. Nothing else about an internal error
 * (message, stack) is ever sent.
 */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  [extension: string]: unknown;
}

export const problemTypePrefix = 'urn:platform:problem:';

export class Problem extends Error {
  readonly status: number;
  readonly slug: string;
  readonly title: string;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    slug: string,
    title: string,
    detail?: string,
    extensions: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(detail ?? title);
    this.status = status;
    this.slug = slug;
    this.title = title;
    this.extensions = extensions;
    this.headers = headers;
  }

  body(instance?: string): ProblemBody {
    return {
      type: problemTypePrefix + this.slug,
      title: this.title,
      status: this.status,
      ...(this.message !== this.title ? { detail: this.message } : {}),
      ...(instance ? { instance } : {}),
      ...this.extensions,
    };
  }
}

export interface InvalidParam {
  name: string;
  reason: string;
}

export const problems = {
  validation: (detail: string, invalidParams: InvalidParam[] = []) =>
    new Problem(400, 'validation-error', 'Request validation failed', detail, { invalid_params: invalidParams }),
  malformedJson: (detail = 'The request body is not valid JSON.') => new Problem(400, 'malformed-json', 'Malformed JSON body', detail),
  unsupportedMediaType: (expected: string) =>
    new Problem(415, 'unsupported-media-type', 'Unsupported media type', `Send the body as ${expected}.`),
  payloadTooLarge: (limit: number) =>
    new Problem(413, 'payload-too-large', 'Request body too large', `The body exceeds the ${limit}-byte limit.`, { limit }),
  /** `resourceMetadata`: the RFC 9728 protected resource metadata URL, so clients can discover how to authenticate. */
  /** `error` null: the request carried no credentials, and the challenge names no error (RFC 6750 §3.1). */
  unauthorized: (detail: string, error: 'invalid_request' | 'invalid_token' | null = 'invalid_token', resourceMetadata?: string) =>
    new Problem(
      401,
      'unauthorized',
      'Authentication required',
      detail,
      {},
      {
        'WWW-Authenticate': [
          'Bearer',
          [
            ...(error ? [`error="${error}"`, `error_description="${detail.replace(/"/g, "'")}"`] : []),
            ...(resourceMetadata ? [`resource_metadata="${resourceMetadata}"`] : []),
          ].join(', '),
        ]
          .filter(Boolean)
          .join(' '),
      },
    ),
  invalidCredentials: () => new Problem(401, 'invalid-credentials', 'Invalid email or password'),
  forbidden: (detail: string) => new Problem(403, 'forbidden', 'Forbidden', detail),
  insufficientScope: (scope: string) =>
    new Problem(
      403,
      'insufficient-scope',
      'Insufficient scope',
      `This operation needs the ${scope} scope.`,
      { required_scope: scope },
      {
        'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
      },
    ),
  humanRequired: () =>
    new Problem(
      403,
      'human-required',
      'A signed-in person is required',
      'Server credentials, API keys and OAuth clients cannot do this: it takes a person signed in as themselves.',
    ),
  onBehalfOfRefused: (detail: string) => new Problem(403, 'on-behalf-of-refused', 'Acting for this person is not allowed', detail),
  notFound: (what: string, id?: string) =>
    new Problem(404, 'not-found', 'Not found', id ? `No ${what} with id ${id} is visible to you.` : `No such ${what}.`),
  routeNotFound: (path: string) => new Problem(404, 'route-not-found', 'No such route', `Nothing is served at ${path}.`),
  methodNotAllowed: (method: string, allowed: string[]) =>
    new Problem(
      405,
      'method-not-allowed',
      'Method not allowed',
      `${method} is not allowed here.`,
      { allowed },
      {
        Allow: allowed.join(', '),
      },
    ),
  conflict: (slug: string, detail: string) => new Problem(409, slug, 'Conflict', detail),
  unavailable: (detail: string, extensions: Record<string, unknown> = {}) =>
    new Problem(503, 'service-unavailable', 'Service unavailable', detail, extensions),
  /** Storage did not answer (a missed deadline, an unreachable engine); the driver's message stays in the log. */
  storageUnavailable: () =>
    new Problem(
      503,
      'storage-unavailable',
      'Storage unavailable',
      'Storage did not answer in time; retry shortly.',
      {},
      { 'Retry-After': '1' },
    ),
  tooBusy: () =>
    new Problem(
      429,
      'too-many-requests',
      'Too many requests',
      'Too many credential checks are in progress; retry shortly.',
      {},
      { 'Retry-After': '1' },
    ),
  internal: () => new Problem(500, 'internal-error', 'Internal server error', 'An unexpected error occurred.'),
};
