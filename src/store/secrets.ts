import type { Db } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import type { Envelope, KeyRing } from '../kernel/crypto/envelope.js';

export interface SecretDoc {
  _id: string;
  name: string;
  owner_id: string;
  envelope: Envelope;
  created_at: Date;
}

/**
 * Secrets encrypted at rest (SPEC §2.3 rule 3). The value is opened only by `reveal`, which only the
 * activity making an outbound call uses; nothing returns it to a client.
 */
export class SecretStore {
  constructor(
    private readonly db: Db,
    private readonly ring: KeyRing,
  ) {}

  private get coll() {
    return this.db.collection<SecretDoc>('secrets');
  }

  async create(ownerId: string, name: string, value: string): Promise<SecretDoc> {
    const id = uuidv7();
    const doc: SecretDoc = {
      _id: id,
      name,
      owner_id: ownerId,
      envelope: this.ring.sealEnvelope(value, `secret:${id}`),
      created_at: new Date(),
    };
    await this.coll.insertOne(doc);
    return doc;
  }

  get(ownerId: string, id: string): Promise<SecretDoc | null> {
    return this.coll.findOne({ _id: id, owner_id: ownerId }, { projection: { envelope: 0 } });
  }

  list(ownerId: string): Promise<SecretDoc[]> {
    return this.coll
      .find({ owner_id: ownerId }, { projection: { envelope: 0 } })
      .sort({ _id: 1 })
      .toArray();
  }

  async delete(ownerId: string, id: string): Promise<boolean> {
    return (await this.coll.deleteOne({ _id: id, owner_id: ownerId })).deletedCount === 1;
  }

  async reveal(ownerId: string, id: string): Promise<string | null> {
    const doc = await this.coll.findOne({ _id: id, owner_id: ownerId });
    return doc ? this.ring.openEnvelope(doc.envelope, `secret:${id}`) : null;
  }
}
