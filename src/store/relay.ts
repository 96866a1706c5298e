import type { Db } from 'mongodb';
import type { CallOp, PolicySummary, RelayError, RunningServer } from '../relay-protocol/wire.js';
import { isDuplicateKey } from './mongo.js';

/**
 * A call for a host's relay (docs/decisions.md, "Desktop host relay"). An activity writes one per
 * attempt (`_id` `<lineage>#<attempt>`); the relay's poll takes it with a claim; its one answer is a
 * result. Claims and results are unique inserts, the only atomic writes the store gives (DESIGN
 * principle 2): whoever inserts a call's result first decided it, so it is answered exactly once.
 */
export interface RelayCallDoc {
  _id: string;
  /** The activity that asked, across its attempts: `<workflow id>/<run id>/<activity id>`. */
  lineage: string;
  attempt: number;
  host_id: string;
  server_id: string;
  revision: number;
  op: CallOp;
  params: Record<string, unknown>;
  /** Whose secrets the server's env references (the registration's last writer). */
  secrets_owner: string;
  timeout_ms: number;
  created_at: Date;
  deadline_at: Date;
  /** Not yet taken: an index hint for the poll, set false once claimed or decided (correctness is the claim's). */
  pending: boolean;
}

export interface RelayClaimDoc {
  _id: string;
  host_id: string;
  session: string;
  claimed_at: Date;
}

/** How a call ended: the relay's answer, or the platform's decision that none will come. */
export const relayOutcomes = ['result', 'failure', 'lost', 'cancelled', 'timeout', 'unavailable'] as const;
export type RelayOutcome = (typeof relayOutcomes)[number];

export interface RelayResultDoc {
  _id: string;
  host_id: string;
  outcome: RelayOutcome;
  result?: Record<string, unknown>;
  failure?: { kind: string; message: string; retryable: boolean };
  /** The session that answered (outcome result or failure). */
  session?: string;
  at: Date;
}

export interface RelayProgressDoc {
  _id: string;
  progress?: number;
  total?: number;
  at: Date;
}

/** What the host's relay last said of itself (one writer at a time: the host's current session). */
export interface RelayHostDoc {
  _id: string;
  session: string;
  session_started_at: Date;
  last_seen: Date;
  credential_id: string;
  version: string;
  os: string;
  arch: string;
  sandbox: string;
  policy: PolicySummary;
  servers: RunningServer[];
  errors: RelayError[];
}

export class RelayStore {
  constructor(private readonly db: Db) {}

  get calls() {
    return this.db.collection<RelayCallDoc>('relay_calls');
  }
  get claims() {
    return this.db.collection<RelayClaimDoc>('relay_claims');
  }
  get results() {
    return this.db.collection<RelayResultDoc>('relay_results');
  }
  get progress() {
    return this.db.collection<RelayProgressDoc>('relay_progress');
  }
  get hosts() {
    return this.db.collection<RelayHostDoc>('relay_hosts');
  }

  /** The lineage's calls, latest attempt first. */
  lineage(lineage: string): Promise<RelayCallDoc[]> {
    return this.calls.find({ lineage }).sort({ attempt: -1 }).limit(50).toArray();
  }

  /** Records a call; false when this attempt's call exists already (a retried activity start). */
  async addCall(doc: RelayCallDoc): Promise<boolean> {
    return insertOnce(() => this.calls.insertOne(doc));
  }

  /** Takes a call for a session; false when someone took or decided it first. */
  async claim(doc: RelayClaimDoc): Promise<boolean> {
    const won = await insertOnce(() => this.claims.insertOne(doc));
    await this.calls.updateOne({ _id: doc._id }, { $set: { pending: false } });
    return won;
  }

  /** Decides a call; false when it was decided first (the earlier result stands). */
  async decide(doc: RelayResultDoc): Promise<boolean> {
    const won = await insertOnce(() => this.results.insertOne(doc));
    if (won) await this.calls.updateOne({ _id: doc._id }, { $set: { pending: false } });
    return won;
  }

  getCall(id: string): Promise<RelayCallDoc | null> {
    return this.calls.findOne({ _id: id });
  }
  getClaim(id: string): Promise<RelayClaimDoc | null> {
    return this.claims.findOne({ _id: id });
  }
  getResult(id: string): Promise<RelayResultDoc | null> {
    return this.results.findOne({ _id: id });
  }
  getProgress(id: string): Promise<RelayProgressDoc | null> {
    return this.progress.findOne({ _id: id });
  }
  getHost(hostId: string): Promise<RelayHostDoc | null> {
    return this.hosts.findOne({ _id: hostId });
  }

  /** Calls waiting for a host's relay, oldest first, not past their deadline. */
  pendingFor(hostId: string, now: Date, limit: number): Promise<RelayCallDoc[]> {
    return this.calls
      .find({ host_id: hostId, pending: true, deadline_at: { $gt: now } })
      .sort({ created_at: 1 })
      .limit(limit)
      .toArray();
  }

  /** Calls a session took before `before` (recent first, bounded): those it does not say it runs never reached it. */
  takenBy(hostId: string, session: string, since: Date, before: Date): Promise<RelayClaimDoc[]> {
    return this.claims
      .find({ host_id: hostId, claimed_at: { $gt: since, $lt: before }, session })
      .sort({ claimed_at: -1 })
      .limit(100)
      .toArray();
  }

  claimsOf(ids: string[]): Promise<RelayClaimDoc[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.claims.find({ _id: { $in: ids } }).toArray();
  }

  /** Of these calls, the ones already decided. */
  async decided(ids: string[]): Promise<RelayResultDoc[]> {
    if (ids.length === 0) return [];
    return this.results.find({ _id: { $in: ids } }).toArray();
  }

  /** Calls a host's sessions other than `session` took and nobody answered (the relay that took them is gone). */
  async orphaned(hostId: string, session: string, since: Date): Promise<RelayClaimDoc[]> {
    const claims = await this.claims
      .find({ host_id: hostId, session: { $ne: session }, claimed_at: { $gt: since } })
      .limit(500)
      .toArray();
    const done = new Set((await this.decided(claims.map((c) => c._id))).map((r) => r._id));
    return claims.filter((c) => !done.has(c._id));
  }

  /**
   * Forgets a host's calls made before `before`, with their claims, results and progress, a bounded
   * batch at a time (the oldest first). Nothing waits on them by then: a call's activity ends within
   * its deadline and the timeouts around it.
   */
  async prune(hostId: string, before: Date, batch = 1000): Promise<number> {
    const old = await this.calls
      .find({ host_id: hostId, created_at: { $lt: before } }, { projection: { _id: 1 } })
      .limit(batch)
      .toArray();
    const ids = old.map((c) => c._id);
    if (!ids.length) return 0;
    await Promise.all([this.results, this.claims, this.progress].map((c) => c.deleteMany({ _id: { $in: ids } })));
    await this.calls.deleteMany({ _id: { $in: ids } });
    return ids.length;
  }

  async setProgress(doc: RelayProgressDoc): Promise<void> {
    await this.progress.updateOne({ _id: doc._id }, { $set: doc }, { upsert: true });
  }

  /** What the host's relay says of itself now (an absolute set by its current session). */
  async putHost(doc: RelayHostDoc): Promise<void> {
    await this.hosts.updateOne({ _id: doc._id }, { $set: doc }, { upsert: true });
  }

  async setSeen(hostId: string, fields: Pick<RelayHostDoc, 'last_seen' | 'servers' | 'errors'>): Promise<void> {
    await this.hosts.updateOne({ _id: hostId }, { $set: fields });
  }

  hostsByIds(ids: string[]): Promise<RelayHostDoc[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.hosts.find({ _id: { $in: ids } }).toArray();
  }
}

async function insertOnce(insert: () => Promise<unknown>): Promise<boolean> {
  try {
    await insert();
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}
