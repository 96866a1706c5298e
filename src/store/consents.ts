import type { Db } from 'mongodb';
import type { ActorKind, ResourceFilters } from '../identity/principal.js';

/**
 * A person's permission for a credential to act on their behalf: X-On-Behalf-Of for server
 * credentials and API keys, or an OAuth client's access through the authorization server, which also
 * records what the person allowed (scopes, workspaces) and the grant its tokens belong to.
 */
export interface ConsentDoc {
  _id: string; // `${person_id}:${credential_kind}:${credential_id}`
  person_id: string;
  credential_kind: Exclude<ActorKind, 'user'>;
  credential_id: string;
  created_at: Date;
  oauth?: { client_name: string; scopes: string[]; filters: ResourceFilters; grant_id: string };
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

  /**
   * Records what a person allowed an OAuth client, replacing an earlier decision. The grant id is
   * kept when the person allows the client again, so its other devices' tokens live on; a consent that
   * was revoked starts a new grant, and tokens from before the revocation stay dead.
   */
  async grantOAuth(person: string, clientId: string, oauth: Omit<NonNullable<ConsentDoc['oauth']>, 'grant_id'>, newGrantId: string) {
    const _id = consentId(person, 'oauth_client', clientId);
    // One atomic upsert: a revocation between a read and a write could not bring an old grant back.
    await this.coll.updateOne(
      { _id },
      {
        $set: { 'oauth.client_name': oauth.client_name, 'oauth.scopes': oauth.scopes, 'oauth.filters': oauth.filters },
        $setOnInsert: {
          person_id: person,
          credential_kind: 'oauth_client',
          credential_id: clientId,
          created_at: new Date(),
          'oauth.grant_id': newGrantId,
        },
      },
      { upsert: true },
    );
    const doc = await this.coll.findOne({ _id });
    if (!doc?.oauth) throw new Error('the consent was revoked while it was being granted');
    return doc;
  }

  get(person: string, kind: string, credential: string): Promise<ConsentDoc | null> {
    return this.coll.findOne({ _id: consentId(person, kind, credential) });
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
