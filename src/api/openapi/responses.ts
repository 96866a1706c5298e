import { z } from 'zod';

const statusesOf = new WeakMap<z.ZodType, Record<number, z.ZodType>>();

/**
 * A route's response when it answers more than one success status, each with its own body: `POST
 * /artifacts/{id}/invoke` answers 200 with the settled invocation and 202 with where to poll it.
 * Give it as `doc.response` (and the usual status as `doc.status`): it validates what any of them
 * holds, and the OpenAPI document lists each status with its own schema.
 */
export function byStatus(responses: Record<number, z.ZodType>): z.ZodType {
  const union = z.union(Object.values(responses));
  statusesOf.set(union, responses);
  return union;
}

/** The success statuses of a response and the schema of each: the route's one status, or those of `byStatus`. */
export function successResponses(response: z.ZodType | undefined, status: number): Record<number, z.ZodType | undefined> {
  return (response && statusesOf.get(response)) ?? { [status]: response };
}
