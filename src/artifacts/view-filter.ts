import { mimeMatches } from '../identity/principal.js';
import type { ViewContent } from './content-types/view.js';

/**
 * Whether an artifact passes a view's filter (issue #36), decided on the document: the store reads a
 * container in order and keeps what this keeps (store/view-queries.ts says why the filter is not in
 * the query). One definition for every engine.
 */

/** An artifact's tags: the strings of `context.tags` (a lone string is one tag). */
export function tagsOf(context: Record<string, unknown> | undefined): string[] {
  const held = context?.tags;
  if (typeof held === 'string') return [held];
  return Array.isArray(held) ? held.filter((t): t is string => typeof t === 'string') : [];
}

export interface Filterable {
  content_type: string;
  context: Record<string, unknown>;
  archived_at?: Date;
}

/**
 * The view's filter as a test on one artifact: not archived, of a type the view asks for and the
 * caller may read (`typeLimits`: the caller's content-type scopes, null: any), holding every tag, and
 * each context field equal to the value (same JSON type: 2 is not "2").
 */
export function viewMatcher(filter: ViewContent['filter'], typeLimits: string[] | null): (doc: Filterable) => boolean {
  const types = filter.content_types ?? null;
  const tags = filter.tags ?? [];
  const fields = Object.entries(filter.context ?? {});
  return (doc) => {
    if (doc.archived_at) return false;
    if (types && !types.some((p) => mimeMatches(p, doc.content_type))) return false;
    if (typeLimits && !typeLimits.some((p) => mimeMatches(p, doc.content_type))) return false;
    if (tags.length) {
      const held = tagsOf(doc.context);
      if (!tags.every((t) => held.includes(t))) return false;
    }
    const context = doc.context ?? {};
    return fields.every(([field, value]) => Object.hasOwn(context, field) && context[field] === value);
  };
}
