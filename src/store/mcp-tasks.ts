import type { Db } from 'mongodb';
import { isDuplicateKey } from './mongo.js';

/**
 * An MCP task (the `io.modelcontextprotocol/tasks` extension, docs/decisions.md "MCP tasks"): the
 * handle a client polls for a long tool call. Its id is the workflow's business id, and the workflow
 * is the authority on its state; this record only says whose it is, which tool made it, what it stands
 * for, and what the tool knew when it started. Written once, by a unique insert, before the task is
 * returned (the protocol's "durably created"); only `cancel_requested_at` is set later.
 */
export interface McpTaskDoc {
  _id: string;
  /** The person (principal subject) the task is for. */
  subject: string;
  /** The credential that made it (a person's session, API key, OAuth client or server credential): only it reads, answers or cancels the task. */
  actor: { kind: string; id: string };
  tool: string;
  kind: 'commit' | 'invocation';
  /** The commit id or the invocation id. */
  ref: string;
  /** What the tool had when it started, to compose its final result (ask: the question and its hits, by id, never their text). */
  context?: Record<string, unknown>;
  created_at: Date;
  /** When the handle goes: a week after the work could last (docs/decisions.md, "MCP tasks"). */
  expires_at: Date;
  cancel_requested_at?: Date;
}

export class McpTaskStore {
  constructor(private readonly db: Db) {}

  private get tasks() {
    return this.db.collection<McpTaskDoc>('mcp_tasks');
  }

  /** Records a task; the record there already when a retried call made the same task (same workflow). */
  async create(doc: McpTaskDoc): Promise<McpTaskDoc> {
    try {
      await this.tasks.insertOne(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const earlier = await this.tasks.findOne({ _id: doc._id });
      if (!earlier) throw err;
      return earlier;
    }
  }

  get(id: string): Promise<McpTaskDoc | null> {
    return this.tasks.findOne({ _id: id });
  }

  /** Notes that the owner asked to cancel (the first time counts). */
  async requestCancel(id: string, at: Date): Promise<void> {
    await this.tasks.updateOne({ _id: id, cancel_requested_at: { $exists: false } }, { $set: { cancel_requested_at: at } });
  }

  /** Forgets a person's expired task handles (their workflows and records stay; only the handles go). */
  async prune(subject: string, now: Date): Promise<void> {
    await this.tasks.deleteMany({ subject, expires_at: { $lt: now } });
  }
}
