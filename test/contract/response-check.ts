// Checks real answers against the contract: every JSON success answer a test receives is validated
// against the schema the OpenAPI document declares for its route and status (JSON Schema 2020-12, by
// ajv, as a client's validator would) and against the presenter's zod schema the route names.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { z } from 'zod';
import { templateOf } from '../../src/api/openapi/document.js';
import { successResponses } from '../../src/api/openapi/responses.js';
import type { RouteDef } from '../../src/api/route.js';
import { Api, type Reply } from '../helpers/http.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface Matched {
  route: RouteDef;
  key: string;
}

export class ResponseChecker {
  /** `METHOD /path` of every route answered, with the statuses seen. */
  readonly seen = new Map<string, Set<number>>();
  readonly failures: string[] = [];
  private readonly ajv = addFormats(new Ajv2020({ strict: false, allErrors: true })).addFormat('base64', /^[A-Za-z0-9+/]*={0,2}$/);
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly matchers: { route: RouteDef; key: string; pattern: RegExp }[];

  constructor(
    routes: readonly RouteDef[],
    private readonly document: any,
  ) {
    this.matchers = routes.map((route) => {
      const { template } = templateOf(route.path);
      const pattern = template
        .split(/(\{[^}]+\})/)
        .map((part) =>
          part.startsWith('{')
            ? route.path.includes(`*${part.slice(1, -1)}`)
              ? '.+'
              : '[^/]+'
            : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'),
        )
        .join('');
      return { route, key: `${route.method} ${template}`, pattern: new RegExp(`^${pattern}$`) };
    });
  }

  /** The route the router would give `method path`: the first of the table that matches, as mounted. */
  match(method: string, path: string): Matched | null {
    const bare = path.split('?')[0]!;
    return this.matchers.find((m) => m.route.method === method.toLowerCase() && m.pattern.test(bare)) ?? null;
  }

  /** Validates one answer; a failure is kept with what was sent and why it does not fit. */
  check(method: string, path: string, reply: Reply): void {
    const matched = this.match(method, path);
    if (!matched || reply.status < 200 || reply.status >= 300) return;
    const statuses = this.seen.get(matched.key) ?? new Set();
    this.seen.set(matched.key, statuses.add(reply.status));
    if (!/^application\/json/.test(reply.headers.get('content-type') ?? '')) return;
    const where = `${method} ${path} → ${reply.status} (${matched.key})`;
    const declared = this.document.paths[matched.key.split(' ')[1]!]?.[matched.route.method]?.responses?.[reply.status];
    const schema = declared?.content?.['application/json']?.schema;
    if (!schema || Object.keys(schema).length === 0) {
      this.failures.push(`${where}: the document declares no schema for this status`);
      return;
    }
    const validate = this.validator(`${matched.key} ${reply.status}`, schema);
    if (!validate(reply.body))
      this.failures.push(`${where}: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}\n  ${reply.text.slice(0, 600)}`);
    const zod = this.zodSchema(matched.route, reply.status);
    const parsed = zod?.safeParse(reply.body);
    if (!zod) this.failures.push(`${where}: the route names no zod schema for this status`);
    else if (!parsed!.success)
      this.failures.push(`${where}: zod: ${parsed!.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }

  private zodSchema(route: RouteDef, status: number): z.ZodType | undefined {
    const fallback = route.doc?.status ?? (route.method === 'delete' ? 204 : 200);
    return successResponses(route.doc?.response, fallback)[status];
  }

  private validator(key: string, schema: object): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) {
      // The response's schema refers to the document's named schemas (#/components/schemas/...).
      validate = this.ajv.compile({ ...schema, components: { schemas: this.document.components.schemas } });
      this.compiled.set(key, validate);
    }
    return validate;
  }
}

/** An Api client whose every answer goes through the checker. */
export class CheckedApi extends Api {
  constructor(
    url: string,
    token: string | undefined,
    readonly checker: ResponseChecker,
  ) {
    super(url, token);
  }

  static of(api: Api, checker: ResponseChecker): CheckedApi {
    return new CheckedApi(api.url, api.token, checker);
  }

  override withToken(token: string | undefined): CheckedApi {
    return new CheckedApi(this.url, token, this.checker);
  }

  override async login(email: string, password: string): Promise<CheckedApi> {
    return (await super.login(email, password)) as CheckedApi;
  }

  override async request(
    method: string,
    path: string,
    init: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<Reply> {
    const reply = await super.request(method, path, init);
    this.checker.check(method, path, reply);
    return reply;
  }
}
