import { z } from 'zod';

/**
 * `content` of an `application/vnd.platform.view+json` artifact (SPEC §2.2, issue #36): a saved
 * filter over some workspaces and collections whose results the platform answers and keeps live
 * (GET /artifacts/{id}/results, its /stream, the `get_view_results` tool).
 *
 * Nothing is passed on unchecked, wherever the filter is applied (today on the documents a source's
 * ordered read returns: artifacts/view-filter.ts; a store query tomorrow): context field names are
 * plain identifiers (no `$`, no `.`: they can never become a query operator or reach another
 * field), content types are a type or a `type/*` pattern, tags a small alphabet, and every list is
 * bounded.
 */

export const maxViewSources = 20;
export const maxViewLimit = 200;
export const maxContextFields = 10;
export const viewSorts = ['updated_desc', 'created_desc', 'title_asc', 'position', 'relevance'] as const;
export type ViewSort = (typeof viewSorts)[number];

const id = (what: string) => z.uuid({ error: (issue) => (issue.input === undefined ? 'is required' : `must be a ${what} id (UUID)`) });
const ids = (what: string, min: number) =>
  z
    .array(id(what))
    .min(min, `must name at least ${min} ${what}`)
    .max(maxViewSources, `at most ${maxViewSources} ${what}s`)
    .refine((list) => new Set(list).size === list.length, 'must not repeat an id');

/** `text/markdown` or `image/*`: a media type or a whole top-level type, lower-cased as stored. */
const contentTypePattern = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})$/,
    'must be a content type (text/markdown) or a type pattern (text/*), without parameters',
  );

/** Letters, digits, and space `_ - . : /` inside: what tag agents write, and no quote, backslash or `$`. */
export const tagPattern = /^[\p{L}\p{N}](?:[\p{L}\p{N}_\-.:/ ]{0,62}[\p{L}\p{N}_\-.:/])?$/u;
const tag = z
  .string()
  .regex(tagPattern, 'must be 1 to 64 letters, digits, spaces or _ - . : /, starting and ending with a letter or digit');

/**
 * A context field name: an identifier, never `$…` (an operator), never dotted (another field's path),
 * never one of the names JavaScript objects inherit.
 */
export const contextFieldPattern = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const reservedFields = new Set(['__proto__', 'constructor', 'prototype', 'tags']);
const fieldProblem = (name: string) =>
  !contextFieldPattern.test(name)
    ? 'must be a field name: a letter, then letters, digits, _ or - (at most 64); no $ and no dots'
    : reservedFields.has(name)
      ? name === 'tags'
        ? 'filter tags with filter.tags'
        : 'is reserved'
      : null;

const contextValue = z.union([z.string().max(1000), z.number().finite(), z.boolean()], {
  error: 'must be a string, a number or a boolean (equality)',
});

/**
 * Checked on the object as sent (before zod copies it): a `__proto__` key that JSON.parse made an own
 * property is refused, not silently dropped.
 */
const contextFilter = z.preprocess(
  (value, ctx) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const names = Object.keys(value);
    if (names.length > maxContextFields) ctx.addIssue({ code: 'custom', message: `at most ${maxContextFields} context fields` });
    for (const name of names.slice(0, maxContextFields + 1)) {
      const problem = fieldProblem(name);
      if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
    }
    return value;
  },
  z.record(z.string(), contextValue, { error: 'must be an object of field names to values' }),
);

export const viewContent = z
  .strictObject({
    /** Shown in the console above the results. */
    description: z.string().max(2000).optional(),
    sources: z.strictObject({
      workspaces: ids('workspace', 1),
      collections: ids('collection', 0).optional(),
    }),
    filter: z
      .strictObject({
        content_types: z.array(contentTypePattern).min(1).max(20).optional(),
        /** Every one of them in the artifact's `context.tags`. */
        tags: z.array(tag).min(1).max(10).optional(),
        /** Each field of the artifact's `context` equal to the value. */
        context: contextFilter.optional(),
        /** Text search (the hybrid search of POST /artifacts/search) over the sources. */
        query: z.string().trim().min(1, 'must not be empty').max(1000).optional(),
      })
      .default({}),
    /** Default: relevance with a query, else the most recently updated first. */
    sort: z.enum(viewSorts, { error: `must be one of ${viewSorts.join(', ')}` }).optional(),
    limit: z.int().min(1).max(maxViewLimit).default(50),
  })
  .superRefine((view, ctx) => {
    if (view.sort === 'relevance' && !view.filter.query)
      ctx.addIssue({ code: 'custom', path: ['sort'], message: 'relevance needs filter.query' });
  })
  .transform((view) => ({ ...view, sort: view.sort ?? (view.filter.query ? 'relevance' : 'updated_desc') }) as const);
export type ViewContent = z.output<typeof viewContent>;
