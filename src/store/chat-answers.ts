import type { Db } from 'mongodb';

/**
 * An answer while the model writes it (docs/decisions.md, "Chat"): the text so far, for the stream
 * route to pass on. One record per turn, bounded by the turn's length; written by the chat turn's
 * activity, forgotten once the turn is in the chat (or after a day, when a run died half way).
 */
export interface ChatAnswerDoc {
  /** The turn id. */
  _id: string;
  chat_id: string;
  text: string;
  /** Set when the answer is final (it is being written into the chat). */
  done: boolean;
  updated_at: Date;
  expires_at: Date;
}

const keepMs = 24 * 3600 * 1000;

export class ChatAnswerStore {
  constructor(private readonly db: Db) {}

  private get answers() {
    return this.db.collection<ChatAnswerDoc>('chat_answers');
  }

  /** The text so far (a whole-text write: a retried attempt starts it again from the beginning). */
  async progress(turnId: string, chatId: string, text: string, done = false): Promise<void> {
    const now = new Date();
    await this.answers.updateOne(
      { _id: turnId },
      { $set: { chat_id: chatId, text, done, updated_at: now, expires_at: new Date(now.getTime() + keepMs) } },
      { upsert: true },
    );
  }

  get(turnId: string): Promise<ChatAnswerDoc | null> {
    return this.answers.findOne({ _id: turnId });
  }

  /** Forgets a turn's answer once the chat holds it, and any left behind by runs that died. */
  async forget(turnId: string): Promise<void> {
    await this.answers.deleteOne({ _id: turnId });
    await this.answers.deleteMany({ expires_at: { $lt: new Date() } });
  }
}
