import type { z } from 'zod';
import { problems, type InvalidParam } from './problem.js';

/** zod to problem+json: what REST, MCP and the operations they share all validate with. */
export type Where = 'body' | 'query' | 'path' | 'header';

/** Each issue as an invalid parameter; an unknown key is named itself, not its object. */
export function invalidParams(issues: z.core.$ZodIssue[], where: Where): InvalidParam[] {
  return issues.flatMap((issue) => {
    const at = issue.path.map(String);
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({ name: [...at, key].join('.'), reason: 'is not a known field' }));
    return [{ name: at.length ? at.join('.') : where, reason: issue.message }];
  });
}

export function refuse(params: InvalidParam[], where: Where): never {
  const first = params[0]!;
  throw problems.validation(first.name === where ? `${where}: ${first.reason}` : `${where} ${first.name}: ${first.reason}`, params);
}

/** Parses with a zod schema; the failure is a 400 naming every bad field, the first in `detail`. */
export function parse<S extends z.ZodType>(schema: S, value: unknown, where: Where): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  return refuse(invalidParams(result.error.issues, where), where);
}
