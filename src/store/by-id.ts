import type { Collection, Document, Filter, FindOptions } from 'mongodb';
import { storeCollectionMark } from './deadline.js';

/** How many primary-key calls findByIds and deleteByIds make at once. */
const parallelReads = 16;

/** `call` on every item, at most 16 at once; the answers in the order of `items`. */
export async function inParallelSlices<T, R>(items: T[], call: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += parallelReads) out.push(...(await Promise.all(items.slice(i, i + parallelReads).map(call))));
  return out;
}

/** Ids one `$in` read of the embedded store takes. */
const idsPerRead = 500;

/**
 * Documents by `_id`; ids not found are skipped, the order of `ids` is kept. On the embedded store,
 * `{_id: {$in: ids}}` 500 at a time: one primary-key index lookup per statement (`= ANY`; the plan
 * test holds it to that), where a bulk import's batch read one by one cost a round trip each.
 * Elsewhere one primary-key read each, at most 16 at once: FerretDB on PostgreSQL answers `$in` (and
 * an `$or` of ids) with a scan of the whole collection (560–950 ms at 20,000 documents, against 6 ms
 * for one `_id` equality; measured, docs/decisions.md), so a read by ids would grow with the collection.
 */
export async function findByIds<T extends Document & { _id: string }>(
  coll: Collection<T>,
  ids: string[],
  options?: FindOptions,
): Promise<T[]> {
  const unique = [...new Set(ids)];
  if (!(storeCollectionMark in coll)) {
    const found = await inParallelSlices(unique, (_id) => coll.findOne<T>({ _id } as Filter<T>, options));
    return found.filter((doc): doc is T => doc !== null);
  }
  const byId = new Map<string, T>();
  for (let i = 0; i < unique.length; i += idsPerRead) {
    const chunk = unique.slice(i, i + idsPerRead);
    for (const doc of await coll.find<T>({ _id: { $in: chunk } } as Filter<T>, options).toArray()) byId.set(doc._id, doc);
  }
  return unique.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Deletes documents by `_id`, one primary-key delete each, at most 16 at once (not `$in`: see
 * findByIds); `also` narrows each delete (e.g. to its owner's documents).
 */
export async function deleteByIds<T extends Document & { _id: string }>(
  coll: Collection<T>,
  ids: string[],
  also: Filter<T> = {},
): Promise<void> {
  await inParallelSlices([...new Set(ids)], (_id) => coll.deleteOne({ ...also, _id } as Filter<T>));
}
