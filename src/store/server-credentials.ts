import type { Db } from 'mongodb';
import type { ResourceFilters } from '../auth/principal.js';

/** A server credential (SPEC §2.6). `_id` is the creator-chosen client_id. Only a scrypt hash of the secret is kept. */
export interface ServerCredentialDoc {
  _id: string;
  name: string;
  server_id: string;
  host_id: string;
  scopes: string[];
  resource_filters: ResourceFilters;
  active: boolean;
  secret_hash: string;
  /** Bumped on rotation and deactivation: tokens carry it and die when it moves. */
  generation: number;
  owner_id: string;
  created_time: Date;
  last_used_at: Date | null;
}

export type CredentialPatch = Partial<Pick<ServerCredentialDoc, 'name' | 'scopes' | 'resource_filters' | 'active'>>;

export class ServerCredentialStore {
  constructor(private readonly db: Db) {}

  private get coll() {
    return this.db.collection<ServerCredentialDoc>('server_credentials');
  }

  async create(doc: ServerCredentialDoc): Promise<void> {
    await this.coll.insertOne(doc);
  }

  get(clientId: string): Promise<ServerCredentialDoc | null> {
    return this.coll.findOne({ _id: clientId });
  }

  listOwned(ownerId: string): Promise<ServerCredentialDoc[]> {
    return this.coll.find({ owner_id: ownerId }).sort({ created_time: 1 }).toArray();
  }

  update(clientId: string, patch: CredentialPatch & { secret_hash?: string }, bumpGeneration: boolean): Promise<ServerCredentialDoc | null> {
    return this.coll.findOneAndUpdate(
      { _id: clientId },
      { $set: patch, ...(bumpGeneration ? { $inc: { generation: 1 } } : {}) },
      { returnDocument: 'after' },
    );
  }

  async touch(clientId: string): Promise<void> {
    await this.coll.updateOne({ _id: clientId }, { $set: { last_used_at: new Date() } });
  }

  async delete(clientId: string): Promise<boolean> {
    return (await this.coll.deleteOne({ _id: clientId })).deletedCount === 1;
  }
}
