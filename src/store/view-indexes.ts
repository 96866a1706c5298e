import type { Db } from 'mongodb';

/**
 * The indexes a view's orders (store/view-queries.ts orderSorts) need besides those every list uses (`order_unique`, `container_recent`):
 * store/mongo.ts ensureIndexes creates them with the rest.
 */
export function viewIndexes(db: Db): Promise<string>[] {
  const artifacts = db.collection('artifacts');
  return [
    artifacts.createIndex({ collection_id: 1, 'provenance.updated_at': -1, _id: -1 }, { name: 'container_updated' }),
    artifacts.createIndex({ collection_id: 1, title: 1, _id: 1 }, { name: 'container_title' }),
  ];
}
