import type { Db } from 'mongodb';
import { randomBase62 } from '../kernel/crypto/opaque.js';
import type { ResourceFilters } from '../identity/principal.js';
import { storageDeadlineMs, withDeadline } from './deadline.js';
import { isDuplicateKey } from './mongo.js';
import { findByIds } from './by-id.js';

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
  /** Kept in `server_credential_usage` (one writer per use, never this document); older documents hold it here. */
  last_used_at: Date | null;
  /** The last claimed change (`server_credential_revisions`); absent until the first change. */
  revision?: number;
}

/** What a change of a credential leaves it as: the fields its owner changes, and the generation. */
type CredentialState = Pick<ServerCredentialDoc, 'name' | 'scopes' | 'resource_filters' | 'active' | 'secret_hash' | 'generation'>;

/**
 * The claim on one change of a credential (`_id` `<client_id>:<revision>`, unique): exactly one
 * writer owns each revision, so a rotation or a deactivation is never written over by a racing change
 * (a change that lost the claim is made again on top of the winner's). It holds the resulting state,
 * so anyone can finish a change whose writer died before writing the document.
 */
interface CredentialRevisionDoc {
  _id: string;
  client_id: string;
  revision: number;
  state: CredentialState;
  claimed_at: Date;
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
      const existing = await withDeadline(
        'client namespace lookup',
        this.namespaces.findOne({ owner_id: ownerId }, { maxTimeMS: storageDeadlineMs }),
      );
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

  /** The newest active credential this owner made for this server (`server_id`), as its latest change left it. */
  async activeForServer(serverId: string, ownerId: string): Promise<ServerCredentialDoc | null> {
    const docs = await this.coll.find({ owner_id: ownerId, server_id: serverId }).sort({ created_time: -1 }).limit(20).toArray();
    for (const found of docs) {
      const doc = await this.settle(found._id, found);
      if (doc?.active) return doc;
    }
    return null;
  }

  /**
   * Changes a credential as its next revision, arbitrated by a unique insert (see
   * CredentialRevisionDoc): a change that loses the claim is made again on the credential as the
   * winner left it, so an earlier deactivation stays, and the generation only moves forward.
   */
  async update(
    clientId: string,
    patch: CredentialPatch & { secret_hash?: string },
    bumpGeneration: boolean,
  ): Promise<ServerCredentialDoc | null> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const doc = await this.settle(clientId);
      if (!doc) return null;
      const revision = (doc.revision ?? 0) + 1;
      const state: CredentialState = {
        name: doc.name,
        scopes: doc.scopes,
        resource_filters: doc.resource_filters,
        active: doc.active,
        secret_hash: doc.secret_hash,
        ...patch,
        generation: doc.generation + (bumpGeneration ? 1 : 0),
      };
      try {
        await this.revisions.insertOne({ _id: `${clientId}:${revision}`, client_id: clientId, revision, state, claimed_at: new Date() });
      } catch (err) {
        if (isDuplicateKey(err)) continue;
        throw err;
      }
      await this.settle(clientId, doc);
      return { ...doc, ...state, revision };
    }
    throw new Error(`server credential ${clientId}: lost the claim on its next change 100 times`);
  }

  /**
   * The credential brought up to its latest claimed change: one whose writer died before writing it,
   * or whose write a slower, older one overwrote (the engine does not isolate updates of a document),
   * is written again from its claim. Every change settles after its write.
   */
  private async settle(clientId: string, known?: ServerCredentialDoc | null): Promise<ServerCredentialDoc | null> {
    let doc = known === undefined ? await this.get(clientId) : known;
    for (let round = 0; doc && round < 1000; round++) {
      const next = await this.revisions.findOne({ _id: `${clientId}:${(doc.revision ?? 0) + 1}` });
      if (!next) return doc;
      await this.coll.updateOne(
        { _id: clientId, $or: [{ revision: { $lt: next.revision } }, { revision: { $exists: false } }] },
        { $set: { ...next.state, revision: next.revision } },
      );
      doc = await this.get(clientId);
    }
    if (doc) throw new Error(`server credential ${clientId}: still behind its claimed changes`);
    return null;
  }

  private get revisions() {
    return this.db.collection<CredentialRevisionDoc>('server_credential_revisions');
  }

  private get usage() {
    return this.db.collection<{ _id: string; last_used_at: Date }>('server_credential_usage');
  }

  /**
   * Records a use in a document of its own: a write to the credential itself could put back a
   * secret or an active flag that a racing rotation or deactivation had just changed.
   */
  async touch(clientId: string): Promise<void> {
    try {
      await this.usage.updateOne({ _id: clientId }, { $set: { last_used_at: new Date() } }, { upsert: true });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err; // two first uses at once: either time will do
    }
  }

  /** The credentials with their last use (kept apart, see touch). */
  async withUsage(docs: ServerCredentialDoc[]): Promise<ServerCredentialDoc[]> {
    if (docs.length === 0) return docs;
    const used = new Map(
      (
        await findByIds(
          this.usage,
          docs.map((d) => d._id),
        )
      ).map((u) => [u._id, u.last_used_at]),
    );
    return docs.map((d) => ({ ...d, last_used_at: used.get(d._id) ?? d.last_used_at }));
  }

  async delete(clientId: string): Promise<boolean> {
    // A racing change cannot bring it back: the engine's update of a missing document writes nothing.
    const deleted = (await this.coll.deleteOne({ _id: clientId })).deletedCount === 1;
    await this.usage.deleteOne({ _id: clientId });
    return deleted;
  }
}
