import { z } from 'zod';
import { problems } from '../errors/problem.js';
import { defaultPageSize, maxPageSize } from '../store/pagination.js';

/** Parses with a zod schema; the failure is a 400 naming every bad field, the first in `detail`. */
export function parse<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'path' | 'header'): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const params = result.error.issues.map((issue) => ({
    name: issue.path.length ? issue.path.map(String).join('.') : where,
    reason: issue.message,
  }));
  const first = params[0]!;
  throw problems.validation(first.name === where ? `${where}: ${first.reason}` : `${where} ${first.name}: ${first.reason}`, params);
}

const idempotencyKey = z.string().min(1).max(200);

/** The request's `Idempotency-Key` header, validated, or undefined when it has none. */
export function idempotencyKeyOf(ctx: { get(name: string): string }): string | undefined {
  const value = ctx.get('idempotency-key');
  return value ? parse(idempotencyKey, value, 'header') : undefined;
}

export const idParam = z.object({ id: z.uuid({ error: 'must be a UUID' }) });

/** `limit` and `cursor` of every paged list. */
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(maxPageSize).default(defaultPageSize),
  cursor: z.string().min(1).optional(),
});
