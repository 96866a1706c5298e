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
  /** The question it answers (the console shows it beside an answer it picks up half written). */
  question?: string;
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
  async progress(turn: { turnId: string; chatId: string; message: string }, text: string, done = false): Promise<void> {
    const now = new Date();
    await this.answers.updateOne(
      { _id: turn.turnId },
      {
        $set: {
          chat_id: turn.chatId,
          question: turn.message,
          text,
          done,
          updated_at: now,
          expires_at: new Date(now.getTime() + keepMs),
        },
      },
      { upsert: true },
    );
  }

  get(turnId: string): Promise<ChatAnswerDoc | null> {
    return this.answers.findOne({ _id: turnId });
  }

  /**
   * A chat's answers being written now (the newest few, through the chat_id index): one written to in
   * the last `freshMs` (a run that died stops being listed), not yet done.
   */
  running(chatId: string, limit = 10, freshMs = 5 * 60_000): Promise<ChatAnswerDoc[]> {
    return this.answers
      .find({ chat_id: chatId, done: false, updated_at: { $gt: new Date(Date.now() - freshMs) } })
      .sort({ updated_at: -1 })
      .limit(limit)
      .toArray();
  }

  /** Forgets a turn's answer once the chat holds it, and any left behind by runs that died. */
  async forget(turnId: string): Promise<void> {
    await this.answers.deleteOne({ _id: turnId });
    await this.answers.deleteMany({ expires_at: { $lt: new Date() } });
  }
}
