import type { Collection, Db } from 'mongodb';
import type { PrincipalSnapshot } from '../identity/principal.js';

export const streamStates = ['starting', 'listening', 'connecting', 'receiving', 'ended', 'failed'] as const;
export type StreamState = (typeof streamStates)[number];
export const liveStates: readonly StreamState[] = ['starting', 'listening', 'connecting', 'receiving'];

/** Recorded artifact ids kept on the record per kind (the newest); the counts are complete. */
export const keptIds = 50;

export interface StreamCounts {
  takes: number;
  segments: number;
  stills: number;
  metadata: number;
  /** Publishers turned away (a wrong key, not RTMP, no publish in time). */
  refused: number;
  /** Files not kept: larger than STREAM_MAX_FILE_BYTES. */
  too_large: number;
}

export const noStreamCounts: StreamCounts = { takes: 0, segments: 0, stills: 0, metadata: 0, refused: 0, too_large: 0 };

/**
 * A stream's latest session (`_id`: the stream artifact's id): written by the session workflow's
 * activities only (one writer per session; every write names the session, so an older one's late
 * write never lands on a newer one). The workflow is the authority; this is its readable projection.
 */
export interface StreamSessionDoc {
  _id: string;
  session_id: string;
  workflow_id: string;
  workspace_id: string;
  requested_by: string;
  principal: PrincipalSnapshot;
  state: StreamState;
  /** Where a publisher sends RTMP, the stream key appended as the stream name (never stored here). */
  ingest_url: string | null;
  started_at: Date;
  ends_by: Date;
  ended_at: Date | null;
  /** The current take's publisher, while receiving. */
  publisher: string | null;
  counts: StreamCounts;
  recorded: { segments: string[]; stills: string[]; metadata: string[] };
  error: string | null;
  /**
   * The recording activity's attempt that owns the record (Temporal's attempt number): an older attempt
   * still running after a newer one started (a missed heartbeat) writes nothing more.
   */
  attempt?: number;
  updated_at: Date;
}

export class StreamSessionStore {
  readonly sessions: Collection<StreamSessionDoc>;

  constructor(db: Db) {
    this.sessions = db.collection<StreamSessionDoc>('stream_sessions');
  }

  /** The live-session counts read at every start (countLive). */
  async ensureIndexes(): Promise<void> {
    await Promise.all([
      this.sessions.createIndex({ state: 1, ends_by: 1 }, { name: 'live' }),
      this.sessions.createIndex({ requested_by: 1, state: 1, ends_by: 1 }, { name: 'live_by_person' }),
    ]);
  }

  /**
   * Live sessions, in all and of one person: a record still in a live state past its deadline is one
   * whose worker died for good, so it no longer counts.
   */
  async countLive(subject: string, now = new Date()): Promise<{ total: number; person: number }> {
    const live = { state: { $in: [...liveStates] }, ends_by: { $gt: now } };
    const [total, person] = await Promise.all([
      this.sessions.countDocuments(live),
      this.sessions.countDocuments({ requested_by: subject, ...live }),
    ]);
    return { total, person };
  }

  get(streamId: string): Promise<StreamSessionDoc | null> {
    return this.sessions.findOne({ _id: streamId });
  }

  /** A new session's record, replacing the stream's previous one (the workflow id is unique: one live session). */
  async begin(doc: StreamSessionDoc): Promise<void> {
    await this.sessions.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }

  /**
   * Sets fields of this session's record; false when the stream has moved on to another session, or
   * (`attempt` given) when a newer attempt owns the record.
   */
  async update(
    streamId: string,
    sessionId: string,
    fields: Partial<Omit<StreamSessionDoc, '_id' | 'session_id'>>,
    attempt?: number,
  ): Promise<boolean> {
    const r = await this.sessions.updateOne(
      { _id: streamId, session_id: sessionId, ...(attempt === undefined ? {} : { attempt }) },
      { $set: { ...fields, updated_at: new Date() } },
    );
    return r.matchedCount > 0;
  }

  /** Makes `attempt` the record's owner, unless a newer one is already: false then (this attempt is stale). */
  async claim(streamId: string, sessionId: string, attempt: number): Promise<boolean> {
    const r = await this.sessions.updateOne(
      { _id: streamId, session_id: sessionId, $or: [{ attempt: { $exists: false } }, { attempt: { $lte: attempt } }] },
      { $set: { attempt, updated_at: new Date() } },
    );
    return r.matchedCount > 0;
  }

  /** The next take's number, reserved on the record (two attempts never share one); null when `attempt` no longer owns it. */
  async reserveTake(streamId: string, sessionId: string, attempt: number): Promise<number | null> {
    const doc = await this.sessions.findOneAndUpdate(
      { _id: streamId, session_id: sessionId, attempt },
      { $inc: { 'counts.takes': 1 }, $set: { updated_at: new Date() } },
      { returnDocument: 'after' },
    );
    return doc ? doc.counts.takes : null;
  }
}
