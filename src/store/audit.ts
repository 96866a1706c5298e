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

export class AuditStore {
  constructor(private readonly db: Db) {}

  private get coll() {
    return this.db.collection<AuditDoc>('audit_log');
  }

  async record(entry: Omit<AuditDoc, '_id' | 'at'>): Promise<void> {
    await this.coll.insertOne({ _id: uuidv7(), ...entry, at: new Date() });
  }

  forPerson(personId: string, limit: number): Promise<AuditDoc[]> {
    return this.coll.find({ person_id: personId }).sort({ _id: -1 }).limit(limit).toArray();
  }
}
