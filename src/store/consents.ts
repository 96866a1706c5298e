import type { Db } from 'mongodb';
import type { ActorKind } from '../identity/principal.js';

/** A person's permission for a credential to act on their behalf (X-On-Behalf-Of). */
export interface ConsentDoc {
  _id: string; // `${person_id}:${credential_kind}:${credential_id}`
  person_id: string;
  credential_kind: Exclude<ActorKind, 'user'>;
  credential_id: string;
  created_at: Date;
}

export const consentId = (person: string, kind: string, credential: string) => `${person}:${kind}:${credential}`;

export class ConsentStore {
  constructor(private readonly db: Db) {}

  private get coll() {
    return this.db.collection<ConsentDoc>('consents');
  }

  async grant(doc: Omit<ConsentDoc, '_id' | 'created_at'>): Promise<ConsentDoc> {
    const full: ConsentDoc = { _id: consentId(doc.person_id, doc.credential_kind, doc.credential_id), ...doc, created_at: new Date() };
    await this.coll.updateOne({ _id: full._id }, { $setOnInsert: full }, { upsert: true });
    return (await this.coll.findOne({ _id: full._id }))!;
  }

  async has(person: string, kind: string, credential: string): Promise<boolean> {
    return (await this.coll.findOne({ _id: consentId(person, kind, credential) }, { projection: { _id: 1 } })) !== null;
  }

  list(person: string): Promise<ConsentDoc[]> {
    return this.coll.find({ person_id: person }).sort({ created_at: 1 }).toArray();
  }

  /** When a credential is deleted: a later credential reusing its id must not inherit its consents. */
  async forgetCredential(kind: string, credential: string): Promise<void> {
    await this.coll.deleteMany({ credential_kind: kind as ConsentDoc['credential_kind'], credential_id: credential });
  }

  async revoke(person: string, kind: string, credential: string): Promise<boolean> {
    return (await this.coll.deleteOne({ _id: consentId(person, kind, credential) })).deletedCount === 1;
  }
}
