import { z } from 'zod';
import { jsonLimits, jsonViolation, shortPath, textProblem } from './limits.js';

/**
 * A free-form JSON object stored as a document (artifact `context`, container `metadata`): storable
 * keys, bounded depth and size, text strings, finite numbers, no array directly inside an array.
 * Checked on the value as sent (before zod copies it), so a `__proto__` key is refused, not dropped.
 */
export function storableRecord(key: z.ZodString = z.string()) {
  return z
    .preprocess(
      (value, ctx) => {
        const found = jsonViolation(value, { maxDepth: jsonLimits.storedDepth, storable: true });
        if (found) ctx.addIssue({ code: 'custom', message: found.reason, path: shortPath(found.path, 7) });
        return value;
      },
      z.record(key, z.unknown()),
    )
    .describe(
      `A JSON object. Keys: 1 to ${jsonLimits.keyLength} characters, not starting with $, without "." or U+0000, not __proto__, constructor or prototype. ` +
        `At most ${jsonLimits.storedDepth} levels deep and ${jsonLimits.storedValues} values; no array directly inside an array; strings without U+0000.`,
    );
}
export const storableObject = storableRecord();

/** A string every engine stores as sent: no U+0000 and no unpaired surrogate. */
export function text(schema: z.ZodString = z.string()): z.ZodString {
  return schema.superRefine((value, ctx) => {
    const problem = textProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

/** A UUID field: a missing one is "is required", a malformed one "must be a UUID" (or `message`). */
export const uuid = (message = 'must be a UUID') => z.uuid({ error: (issue) => (issue.input === undefined ? 'is required' : message) });
