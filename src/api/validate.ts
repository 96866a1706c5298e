import { z } from 'zod';
import { parse, refuse } from '../kernel/errors/validation.js';
import { type InvalidParam } from '../kernel/errors/problem.js';

export { parse };
import { defaultPageSize, maxPageSize } from '../store/pagination.js';
import { textProblem } from '../kernel/json/limits.js';
import { uuid } from '../kernel/json/schemas.js';

/** What every route's query schema is: an object of named parameters. */
export type QuerySchema = z.ZodObject;

/**
 * A route's query string: only the parameters its schema names (none when it has no schema), each
 * given once, as text (no U+0000). `?colection_id=…` or `?collection_id[$ne]=x` is a 400 naming the
 * parameter, never a parameter silently ignored.
 */
export function parseQuery(schema: QuerySchema | undefined, query: Record<string, string | string[] | undefined>): Record<string, unknown> {
  const known = schema ? Object.keys(schema.shape) : [];
  const params: InvalidParam[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (!known.includes(name))
      params.push({
        name,
        reason: known.length
          ? `is not a parameter here (known: ${known.join(', ')})`
          : 'is not a parameter here (this endpoint takes none)',
      });
    else if (Array.isArray(value)) params.push({ name, reason: 'must be given once' });
    else if (value && textProblem(value)) params.push({ name, reason: textProblem(value)! });
  }
  if (params.length > 0) refuse(params, 'query');
  return schema ? parse(schema, query, 'query') : {};
}

/** Path parameters are text: `%00` in `/server-credentials/{client_id}` is a 400, never a store error. */
export function checkPathText(params: Record<string, string>): void {
  const invalid = Object.entries(params).flatMap(([name, value]) => {
    const problem = textProblem(value);
    return problem ? [{ name, reason: problem }] : [];
  });
  if (invalid.length > 0) refuse(invalid, 'path');
}

const idempotencyKey = z.string().min(1).max(200);

/** The request's `Idempotency-Key` header, validated, or undefined when it has none. */
export function idempotencyKeyOf(ctx: { get(name: string): string }): string | undefined {
  const value = ctx.get('idempotency-key');
  return value ? parse(idempotencyKey, value, 'header') : undefined;
}

export const idParam = z.object({ id: uuid() });

/** `limit` and `cursor` of every paged list. */
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(maxPageSize).default(defaultPageSize),
  cursor: z.string().min(1).optional(),
});
