import type { Db } from 'mongodb';
import { isDuplicateKey } from '../store/mongo.js';

/**
 * What an automation did about one event: started its invocation, was refused (its creator lost
 * access, the target is gone), or was stopped by the loop guard. One document per automation and
 * event, written once (a unique insert: a second dispatch finds it and changes nothing).
 */
export interface AutomationRunDoc {
  /** `<automation id>:<event id>` */
  _id: string;
  automation_id: string;
  event_id: string;
  event_kind: string;
  workspace_id: string;
  artifact_id: string;
  /** The triggering event's depth (how many automation runs led to it). */
  event_depth: number;
  status: 'started' | 'refused' | 'loop_guard';
  /** The person it runs as: the automation's creator. */
  run_as: string;
  invocation_id?: string;
  reason?: string;
  at: Date;
}

export class AutomationRunStore {
  constructor(private readonly db: Db) {}

  private get runs() {
    return this.db.collection<AutomationRunDoc>('automation_runs');
  }

  /** Records the outcome once; a record already there (an earlier dispatch of the same event) wins. */
  async record(doc: Omit<AutomationRunDoc, '_id' | 'at'>): Promise<void> {
    try {
      await this.runs.insertOne({ ...doc, _id: `${doc.automation_id}:${doc.event_id}`, at: new Date() });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /** An automation's runs, most recent event first (event ids are UUIDv7, so they sort by time). */
  list(automationId: string, limit = 100): Promise<AutomationRunDoc[]> {
    return this.runs.find({ automation_id: automationId }).sort({ event_id: -1 }).limit(limit).toArray();
  }
}
