import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import { isDuplicateKey } from './mongo.js';

/**
 * The link from an external identity (an OpenID Connect issuer and its `sub`) to a person. Its `_id`
 * is derived from (issuer, subject), so linking is one atomic unique insert: of two first sign-ins
 * at once, one inserts and the other reads the winner's link.
 */
export interface ExternalIdentityDoc {
  /** sha256 of the JSON pair [issuer, subject], hex. */
  _id: string;
  issuer: string;
  subject: string;
  /** The configured provider's name it was linked through. */
  provider: string;
  person_id: string;
  /** The verified e-mail the IdP asserted when the link was made, else null; for the record only. */
  email: string | null;
  created_at: Date;
}

/** The stable key of (issuer, subject): the JSON pair keeps "a|b","c" apart from "a","b|c". */
export function externalIdentityKey(issuer: string, subject: string): string {
  return createHash('sha256')
    .update(JSON.stringify([issuer, subject]))
    .digest('hex');
}

export class ExternalIdentityStore {
  constructor(private readonly db: Db) {}

  private get links() {
    return this.db.collection<ExternalIdentityDoc>('external_identities');
  }

  find(issuer: string, subject: string): Promise<ExternalIdentityDoc | null> {
    return this.links.findOne({ _id: externalIdentityKey(issuer, subject) });
  }

  /** Inserts the link unless (issuer, subject) is linked already; either way returns the link that holds. */
  async link(link: Omit<ExternalIdentityDoc, '_id' | 'created_at'>): Promise<{ doc: ExternalIdentityDoc; created: boolean }> {
    const doc: ExternalIdentityDoc = { _id: externalIdentityKey(link.issuer, link.subject), ...link, created_at: new Date() };
    try {
      await this.links.insertOne(doc);
      return { doc, created: true };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const held = await this.links.findOne({ _id: doc._id });
      if (!held) throw err; // removed again in between: the caller's next sign-in links afresh
      return { doc: held, created: false };
    }
  }

  /** Removes the link if it still points at `personId` (undoing a link whose account could not be made). */
  async unlink(issuer: string, subject: string, personId: string): Promise<void> {
    await this.links.deleteOne({ _id: externalIdentityKey(issuer, subject), person_id: personId });
  }
}
