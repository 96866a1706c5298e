import type { Collection, Document, Filter, FindOptions } from 'mongodb';

/** How many primary-key calls findByIds and deleteByIds (and ArtifactStore.latestOf) make at once. */
export const parallelReads = 16;

/**
 * Documents by `_id`, one primary-key read each, at most 16 at once; ids not found are skipped, the
 * order of `ids` is kept. Not `{_id: {$in: ids}}` (nor an `$or` of ids): FerretDB on PostgreSQL
 * answers those with a scan of the whole collection (560–950 ms at 20,000 documents, against 6 ms for
 * one `_id` equality; measured, docs/decisions.md), so a read by ids would grow with the collection.
 */
export async function findByIds<T extends Document & { _id: string }>(
  coll: Collection<T>,
  ids: string[],
  options?: FindOptions,
): Promise<T[]> {
  const unique = [...new Set(ids)];
  const found: (T | null)[] = [];
  for (let i = 0; i < unique.length; i += parallelReads) {
    const chunk = unique.slice(i, i + parallelReads);
    found.push(...(await Promise.all(chunk.map((_id) => coll.findOne<T>({ _id } as Filter<T>, options)))));
  }
  return found.filter((doc): doc is T => doc !== null);
}

/** Deletes documents by `_id`, one primary-key delete each, at most 16 at once (not `$in`: see findByIds). */
export async function deleteByIds<T extends Document & { _id: string }>(coll: Collection<T>, ids: string[]): Promise<void> {
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += parallelReads) {
    await Promise.all(unique.slice(i, i + parallelReads).map((_id) => coll.deleteOne({ _id } as Filter<T>)));
  }
}
