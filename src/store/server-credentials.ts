import type { Db } from 'mongodb';
import { randomBase62 } from '../auth/opaque.js';
import type { ResourceFilters } from '../auth/principal.js';
import { storageDeadlineMs, withDeadline } from './deadline.js';
import { isDuplicateKey } from './mongo.js';

/**
 * A server credential (SPEC §2.6). `_id` is the client_id: the name its creator chose, qualified by
 * the creator's namespace (`<chosen>.<namespace>`), so one person's choice never collides with
 * another's. Only a scrypt hash of the secret is kept.
 */
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

/** Each person's client_id namespace: a random tag, unique, and one per person (both unique indexes). */
interface ClientNamespaceDoc {
  _id: string;
  owner_id: string;
  created_at: Date;
}

/** 6 random bytes as 9 base-62 characters: a namespace nobody can guess from the person's id. */
export const namespaceLength = 9;

export type CredentialPatch = Partial<Pick<ServerCredentialDoc, 'name' | 'scopes' | 'resource_filters' | 'active'>>;

export class ServerCredentialStore {
  constructor(private readonly db: Db) {}

  private get coll() {
    return this.db.collection<ServerCredentialDoc>('server_credentials');
  }

  private get namespaces() {
    return this.db.collection<ClientNamespaceDoc>('client_namespaces');
  }

  /**
   * The person's namespace, made on first use. Two replicas making it at once are arbitrated by the
   * unique index on owner_id (the loser reads the winner's); a tag already taken is drawn again.
   */
  async namespaceOf(ownerId: string): Promise<string> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const existing = await withDeadline('client namespace lookup', this.namespaces.findOne({ owner_id: ownerId }, { maxTimeMS: storageDeadlineMs }));
      if (existing) return existing._id;
      try {
        const tag = randomBase62(6);
        await withDeadline('client namespace insert', this.namespaces.insertOne({ _id: tag, owner_id: ownerId, created_at: new Date() }));
        return tag;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
    throw new Error('no client_id namespace could be made');
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
