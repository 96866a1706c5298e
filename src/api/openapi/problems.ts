import { problemTypePrefix } from '../../kernel/errors/problem.js';
import type { JsonSchema } from './json-schema.js';

/** RFC 9457 problem details, as every error of the API is sent (src/kernel/errors/problem.ts). */
export const problemSchema: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details. Switch on `type`, which is stable; `detail` is for people.',
  required: ['type', 'title', 'status'],
  properties: {
    type: {
      type: 'string',
      format: 'uri',
      description: `\`${problemTypePrefix}<slug>\``,
      examples: [`${problemTypePrefix}validation-error`],
    },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    instance: { type: 'string' },
    invalid_params: {
      type: 'array',
      description: 'On validation-error: every field that was refused, the first one in `detail`.',
      items: {
        type: 'object',
        required: ['name', 'reason'],
        properties: { name: { type: 'string' }, reason: { type: 'string' } },
      },
    },
  },
  additionalProperties: true,
};

/** Each error status the routes answer, with the stable `type`s it carries. */
export const problemStatuses: Record<number, { name: string; title: string; description: string; types: string[] }> = {
  400: {
    name: 'BadRequest',
    title: 'Request validation failed',
    description: 'The request was refused as sent',
    types: ['validation-error', 'malformed-json', 'rejected-by-type-server'],
  },
  401: {
    name: 'Unauthorized',
    title: 'Authentication required',
    description: 'No valid credentials (WWW-Authenticate says why)',
    types: ['unauthorized', 'invalid-credentials'],
  },
  403: {
    title: 'Insufficient scope',
    name: 'Forbidden',
    description: 'The credentials do not allow this',
    types: ['insufficient-scope', 'human-required', 'forbidden', 'on-behalf-of-refused'],
  },
  404: { name: 'NotFound', title: 'Not found', description: 'Nothing with this id is visible to you', types: ['not-found'] },
  409: {
    title: 'Conflict',
    name: 'Conflict',
    description: 'The request conflicts with the current state',
    types: [
      'immutable-artifact',
      'collection-write-requires-commit',
      'archived-artifact',
      'nothing-to-commit',
      'commit-not-pending',
      'commit-stale',
      'invocation-not-pending',
      'action-not-proposed',
      'idempotency-key-reused',
      'user-exists',
      'client-id-taken',
      'not-an-mcp-server',
      'too-many-subscriptions',
      'subscription-not-paused',
      'connection-deleting',
      'connection-attempt-gone',
      'authorizer-unusable',
      'not-invocable',
      'chat-full',
      'chat-turn-failed',
      'not-a-view',
      'invalid-view',
      'invalid-mcp-client',
      'not-a-stream',
      'stream-in-collection',
      'stream-key-missing',
      'stream-key-unusable',
      'stream-session-running',
      'stream-sessions-full',
      'stream-not-live',
      'stream-source-refused',
    ],
  },
  412: {
    name: 'PreconditionFailed',
    title: 'Precondition failed',
    description: 'If-Match named another revision (`current_revision` says which)',
    types: ['revision-mismatch'],
  },
  413: {
    name: 'PayloadTooLarge',
    title: 'Request body too large',
    description: 'The body exceeds the size limit',
    types: ['payload-too-large'],
  },
  415: {
    name: 'UnsupportedMediaType',
    title: 'Unsupported media type',
    description: 'The body is not of the media type the route takes',
    types: ['unsupported-media-type'],
  },
  429: {
    title: 'Too many requests',
    name: 'TooManyRequests',
    description: 'A rate limit is used up (Retry-After says when to retry)',
    types: ['rate-limited', 'too-many-requests', 'sign-in-throttled', 'account-locked', 'too-many-streams', 'stream-sessions-per-person'],
  },
  503: {
    title: 'Storage unavailable',
    name: 'ServiceUnavailable',
    description: 'A dependency did not answer in time; retry shortly',
    types: ['storage-unavailable', 'service-unavailable', 'type-server-unavailable'],
  },
};

/** The reusable response of one error status: problem+json, its types listed and exemplified. */
export function problemResponse(status: number): JsonSchema {
  const { title, description, types } = problemStatuses[status]!;
  return {
    description: `${description}. Types: ${types.map((t) => `\`${t}\``).join(', ')}.`,
    content: {
      'application/problem+json': {
        schema: { $ref: '#/components/schemas/Problem' },
        example: { type: problemTypePrefix + types[0], title, status, detail: description + '.' },
      },
    },
  };
}
