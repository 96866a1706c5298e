import type { Collection, Document, Filter, WithId } from 'mongodb';
import { problems } from '../kernel/errors/problem.js';

export const maxPageSize = 200;
export const defaultPageSize = 50;

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** Cursors are opaque to clients: base64url JSON of the last item's sort key. */
export function encodeCursor(values: unknown[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

export function decodeCursor(cursor: string, arity: number): string[] {
  try {
    const values = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    if (Array.isArray(values) && values.length === arity && values.every((v) => typeof v === 'string')) return values;
  } catch {
    // fall through
  }
  throw invalidCursor();
}

export const invalidCursor = () =>
  problems.validation('cursor is not a cursor this API issued.', [{ name: 'cursor', reason: 'is invalid' }]);

/** A page of `filter` in ascending order of a numeric field, after the cursor's number. */
export async function pageByNumber<T extends Document>(
  coll: Collection<T>,
  filter: Filter<T>,
  field: string,
  limit: number,
  cursor?: string,
): Promise<Page<WithId<T>>> {
  const after = cursor ? Number(decodeCursor(cursor, 1)[0]) : -Infinity;
  if (Number.isNaN(after)) throw invalidCursor();
  const docs = await coll
    .find({ ...filter, [field]: { $gt: after } } as Filter<T>)
    .sort({ [field]: 1 })
    .limit(limit + 1)
    .toArray();
  const items = docs.slice(0, limit);
  return { items, next_cursor: docs.length > limit ? encodeCursor([String(items.at(-1)![field])]) : null };
}
