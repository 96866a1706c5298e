import type { Db } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';

/** Which credential acted for whom (X-On-Behalf-Of), one entry per request. */
export interface AuditDoc {
  _id: string;
  credential_kind: string;
  credential_id: string;
  person_id: string;
  method: string;
  path: string;
  status: number;
  request_id: string;
  at: Date;
}

/** A sign-in security event: a failed sign-in, a lockout, an administrator's unlock (SPEC §5.10 sign-in). */
export interface SignInAuditDoc {
  _id: string;
  event: 'sign_in_failed' | 'account_locked' | 'account_unlocked';
  /** The e-mail tried, lower-cased; person_id is null when no account has it. */
  email: string;
  person_id: string | null;
  ip?: string;
  /** The administrator who unlocked. */
  by?: string;
  request_id: string;
  at: Date;
}

export class AuditStore {
  constructor(private readonly db: Db) {}

  private get coll() {
    return this.db.collection<AuditDoc>('audit_log');
  }

  async record(entry: Omit<AuditDoc, '_id' | 'at'>): Promise<void> {
    await this.coll.insertOne({ _id: uuidv7(), ...entry, at: new Date() });
  }

  forPerson(personId: string, limit: number): Promise<AuditDoc[]> {
    return this.coll
      .find({ person_id: personId, event: { $exists: false } })
      .sort({ _id: -1 })
      .limit(limit)
      .toArray();
  }

  private get signIns() {
    return this.db.collection<SignInAuditDoc>('audit_log');
  }

  async recordSignIn(entry: Omit<SignInAuditDoc, '_id' | 'at'>): Promise<void> {
    await this.signIns.insertOne({ _id: uuidv7(), ...entry, at: new Date() });
  }

  /** Sign-in events for an e-mail, newest first. */
  signInsFor(email: string, limit: number): Promise<SignInAuditDoc[]> {
    return this.signIns
      .find({ email: email.toLowerCase(), event: { $exists: true } })
      .sort({ _id: -1 })
      .limit(limit)
      .toArray();
  }
}
