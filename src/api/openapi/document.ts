import { z } from 'zod';
import { platformInfo } from '../../kernel/platform-info.js';
import type { RouteDef } from '../route.js';
import { acceptsEmpty, jsonSchemaOf, responseSchemaOf, type JsonSchema } from './json-schema.js';
import { problemResponse, problemSchema, problemStatuses } from './problems.js';
import { successResponses } from './responses.js';
import { accessNote, securityOf, securitySchemes } from './security.js';

/** `/artifacts/:id/versions/:n` → `/artifacts/{id}/versions/{n}`, and the parameters' names (`*rest` too). */
export function templateOf(path: string): { template: string; params: string[] } {
  const params: string[] = [];
  const template = path.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => (params.push(name), `{${name}}`));
  return { template, params };
}

const operationId = (route: RouteDef) =>
  route.method +
  route.path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');

function parametersOf(route: RouteDef, pathParams: string[]): JsonSchema[] {
  const path = pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const query: JsonSchema[] = [];
  if (route.query && route.query !== 'foreign') {
    const schema = jsonSchemaOf(route.query) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(schema.properties ?? {}))
      query.push({ name, in: 'query', required: schema.required?.includes(name) ?? false, schema: property });
  }
  const onBehalfOf =
    route.access === 'public' || route.access === 'human' || route.access === 'admin'
      ? []
      : [{ $ref: '#/components/parameters/OnBehalfOf' }];
  return [...path, ...query, ...onBehalfOf];
}

/** A bulk import's body: JSON (the route's schema), NDJSON (one document or {url} a line), or multipart files. */
function importBodyDoc(schema: JsonSchema, example: unknown): JsonSchema {
  return {
    required: true,
    description:
      'A JSON array of documents (or {"items": [...], "urls": [{"url": ...}]}); NDJSON, one document or {"url": ...} per line; or multipart/form-data files (Markdown, plain text, HTML, PDF, JSON).',
    content: {
      'application/json': { schema, ...(example !== undefined ? { example } : {}) },
      'application/x-ndjson': { schema: { type: 'string' } },
      'multipart/form-data': {
        schema: { type: 'object', properties: { file: { type: 'array', items: { type: 'string', format: 'binary' } } } },
      },
    },
  };
}

function requestBodyOf(route: RouteDef): JsonSchema | undefined {
  if (!route.body) return undefined;
  // A body the handler checks itself (its shape depends on the target, as for invoke): any object.
  const schema = route.request ? jsonSchemaOf(route.request) : { type: 'object', additionalProperties: true };
  if (route.body === 'import') return importBodyDoc(schema, route.doc?.example);
  const media = route.body === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
  return {
    required: !acceptsEmpty(route.request),
    ...(route.body === 'json-rpc' ? { description: 'A JSON-RPC 2.0 message (MCP Streamable HTTP).' } : {}),
    content: { [media]: { schema, ...(route.doc?.example !== undefined ? { example: route.doc.example } : {}) } },
  };
}

/** The problem statuses a route can answer, from how it is declared, plus those it names itself. */
export function errorStatusesOf(route: RouteDef, pathParams: string[]): number[] {
  const statuses = new Set(route.doc?.errors ?? []);
  // Every route refuses a query parameter it does not declare, a path parameter that is not text, a bad body.
  if (route.query !== 'foreign' || pathParams.length > 0 || route.body) statuses.add(400);
  if (pathParams.length > 0) statuses.add(404);
  if (route.body) [413, 415].forEach((s) => statuses.add(s));
  if (route.access !== 'public') [401, 403, 429, 503].forEach((s) => statuses.add(s));
  if (route.guard) statuses.add(429);
  return [...statuses].sort((a, b) => a - b);
}

/**
 * The success responses of a route: its status (or each of `byStatus`) with the schema of what it
 * holds, derived from the presenter's zod schema as the server sends it. No content for a 204 or a
 * redirect; a page or a stream says its media type.
 */
function successesOf(route: RouteDef, schemas: Record<string, JsonSchema>): JsonSchema {
  const doc = route.doc ?? {};
  const responses: JsonSchema = {};
  for (const [status, response] of Object.entries(successResponses(doc.response, doc.status ?? (route.method === 'delete' ? 204 : 200)))) {
    const success: JsonSchema = { description: doc.responseDescription ?? 'Success' };
    const code = Number(status);
    if (code !== 204 && !(code >= 300 && code < 400))
      success.content = {
        [doc.produces ?? 'application/json']: {
          schema: response ? responseSchemaOf(response, schemas) : doc.produces ? { type: 'string' } : {},
        },
      };
    responses[status] = success;
  }
  return responses;
}

function operationOf(route: RouteDef, pathParams: string[], schemas: Record<string, JsonSchema>): JsonSchema {
  const doc = route.doc ?? {};
  const responses = successesOf(route, schemas);
  for (const s of errorStatusesOf(route, pathParams)) {
    const known = problemStatuses[s];
    responses[s] = known ? { $ref: `#/components/responses/${known.name}` } : { $ref: '#/components/responses/Error' };
  }
  responses.default = { $ref: '#/components/responses/Error' };
  const parameters = parametersOf(route, pathParams);
  const requestBody = requestBodyOf(route);
  const firstSegment = route.path.split('/').find(Boolean)?.replace(/^\./, '') ?? 'root';
  return {
    operationId: operationId(route),
    summary: doc.summary ?? `${route.method.toUpperCase()} ${templateOf(route.path).template}`,
    description: [doc.description, accessNote(route.access)].filter(Boolean).join('\n\n'),
    tags: doc.tags ?? [firstSegment],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
    security: securityOf(route.access),
  };
}

/** The OpenAPI 3.1 document of a route table, served from `apiUri`. */
export function buildDocument(routes: readonly RouteDef[], apiUri: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const schemas: Record<string, JsonSchema> = { Problem: problemSchema };
  for (const route of routes) {
    const { template, params } = templateOf(route.path);
    (paths[template] ??= {})[route.method] = operationOf(route, params, schemas);
  }
  const responses: Record<string, JsonSchema> = Object.fromEntries(
    Object.entries(problemStatuses).map(([status, { name }]) => [name, problemResponse(Number(status))]),
  );
  responses.Error = {
    description: 'Any other error, as problem+json (500 `internal-error`, 405 `method-not-allowed`...).',
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Workspace Knowledge Platform API',
      version: platformInfo.version,
      description:
        'The REST API of the workspace knowledge platform. Every error is RFC 9457 problem+json with a stable `type` ' +
        '(`urn:platform:problem:<slug>`). Request schemas are generated from the zod schemas the routes validate with, ' +
        'response schemas from those of the presenters that write the answers.',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: apiUri }],
    paths,
    components: {
      schemas,
      responses,
      parameters: {
        OnBehalfOf: {
          name: 'X-On-Behalf-Of',
          in: 'header',
          required: false,
          description: 'A server credential or API key acting for a person who consented to it: their id.',
          schema: { type: 'string', format: 'uuid' },
        },
      },
      securitySchemes: securitySchemes(apiUri),
    },
  };
}

/** `GET /openapi.json`: this document (validated in full by the OpenAPI schema in its test, not here). */
export const documentSchema = z.looseObject({
  openapi: z.literal('3.1.0'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.record(z.string(), z.unknown()),
});

const built = new WeakMap<readonly RouteDef[], Map<string, string>>();

/** The document as JSON text, built once per route table and public URL, then kept for the process's life. */
export function openapiJson(routes: readonly RouteDef[], apiUri: string): string {
  let byUri = built.get(routes);
  if (!byUri) built.set(routes, (byUri = new Map()));
  let text = byUri.get(apiUri);
  if (text === undefined) byUri.set(apiUri, (text = JSON.stringify(buildDocument(routes, apiUri))));
  return text;
}
