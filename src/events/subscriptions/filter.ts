import { mimeMatches } from '../../identity/principal.js';
import type { EventKind } from '../types.js';

/** What a subscription delivers: kinds and content types, each null for all. */
export interface SubscriptionFilter {
  kinds: EventKind[] | null;
  content_types: string[] | null;
}

/**
 * Whether an event passes the filter. An event without a content type (recorded before the outbox
 * filled it in) passes only a filter that names no content type.
 */
export function matchesFilter(filter: SubscriptionFilter, event: { kind: string; content_type?: string | undefined }): boolean {
  if (filter.kinds && !filter.kinds.includes(event.kind as EventKind)) return false;
  if (!filter.content_types) return true;
  const type = event.content_type;
  return type !== undefined && filter.content_types.some((pattern) => mimeMatches(pattern, type));
}
