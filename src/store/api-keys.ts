import type { Db } from 'mongodb';
import type { ResourceFilters } from '../identity/principal.js';

/** An API key (SPEC §2.7). The key is `pk_<_id>_<secret>`; only the SHA-256 of the secret is kept. */
export interface ApiKeyDoc {
  _id: string;
  name: string;
  scopes: string[];
  resource_filters: ResourceFilters;
  secret_sha256: string;
  owner_id: string;
  created_at: Date;
  last_used_at: Date | null;
}

export class ApiKeyStore {
  constructor(private readonly db: Db) {}

  private get coll() {
    return this.db.collection<ApiKeyDoc>('api_keys');
  }

  async create(doc: ApiKeyDoc): Promise<void> {
    await this.coll.insertOne(doc);
  }

  get(id: string): Promise<ApiKeyDoc | null> {
    return this.coll.findOne({ _id: id });
  }

  listOwned(ownerId: string): Promise<ApiKeyDoc[]> {
    return this.coll.find({ owner_id: ownerId }).sort({ created_at: 1 }).toArray();
  }

  async touch(id: string): Promise<void> {
    await this.coll.updateOne({ _id: id }, { $set: { last_used_at: new Date() } });
  }

  /**
   * Records a use at `at` unless one was recorded less than `intervalMs` before it: a conditional
   * write, so replicas serving a busy key write it about once an interval, not on every request.
   * True when it wrote.
   */
  async touchUnlessRecent(id: string, at: Date, intervalMs: number): Promise<boolean> {
    const stale = new Date(at.getTime() - intervalMs);
    const result = await this.coll.updateOne(
      { _id: id, $or: [{ last_used_at: null }, { last_used_at: { $lt: stale } }] },
      { $set: { last_used_at: at } },
    );
    return result.modifiedCount === 1;
  }

  async delete(id: string, ownerId: string): Promise<boolean> {
    return (await this.coll.deleteOne({ _id: id, owner_id: ownerId })).deletedCount === 1;
  }
}
