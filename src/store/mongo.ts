import { MongoClient, MongoServerError, type Collection, type Db } from 'mongodb';
import { storageCallMetrics } from '../observability/metrics-storage.js';
import { defaultStorageTimeoutMs, withStorageDeadlines } from './deadline.js';
import { PgStoreClient } from './postgres/client.js';
import { viewIndexes } from './view-indexes.js';

/** What the stores need of a client: a database by name, and close. The driver's MongoClient is one. */
export interface StoreClient {
  db(name: string): Db;
  close(): Promise<void>;
}

/** `postgres://` / `postgresql://`: the embedded store on PostgreSQL (src/store/postgres). */
export const isPostgresUri = (uri: string): boolean => /^postgres(ql)?:\/\//.test(uri);

/**
 * The client for a store URI: MongoDB or Atlas (`mongodb://`, `mongodb+srv://`), or the embedded
 * store on PostgreSQL (`postgres://`). The stores use the same calls on both (docs/decisions.md).
 */
export function createStoreClient(uri: string, timeoutMs = defaultStorageTimeoutMs, poolSize?: number): StoreClient {
  return isPostgresUri(uri) ? new PgStoreClient(uri, timeoutMs, poolSize) : createMongoClient(uri, timeoutMs);
}

/**
 * Only the portable subset of MongoDB is used (CRUD, single-collection indexes, findOneAndUpdate,
 * simple aggregation), so the same code runs on FerretDB, mongod and Atlas. See docs/decisions.md.
 */
export function createMongoClient(uri: string, timeoutMs = defaultStorageTimeoutMs): MongoClient {
  // The driver's half of "every storage call has a deadline" (withStorageDeadlines is the caller's
  // half): no phase of a call waits longer than the deadline, so a stuck engine frees the connection
  // too. driver 6.x's timeoutMS is not used: it is experimental there.
  const phaseMs = Math.min(5000, timeoutMs);
  return new MongoClient(uri, {
    appName: 'platform',
    serverSelectionTimeoutMS: phaseMs,
    connectTimeoutMS: phaseMs,
    waitQueueTimeoutMS: timeoutMs,
    socketTimeoutMS: timeoutMs,
  });
}

/**
 * The database the stores use: every call through it has the deadline `timeoutMs` (see
 * withStorageDeadlines). `onSlow` hears of calls that took more than half of it; each call is counted
 * in the storage metrics.
 */
export function openDatabase(
  client: StoreClient,
  name: string,
  timeoutMs = defaultStorageTimeoutMs,
  onSlow?: (what: string, ms: number) => void,
): Db {
  return withStorageDeadlines(client.db(name), { ms: timeoutMs, onSlow, onCall: storageCallMetrics(name) });
}

export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === 11000;
}

/**
 * Inserts documents that may be there already (a retried batch): the indexes of those that were.
 * Unordered, so every other one goes in; any failure but a duplicate key is thrown.
 */
export async function insertNew<T extends { _id: string }>(coll: Collection<T>, docs: T[]): Promise<Set<number>> {
  const duplicates = new Set<number>();
  if (docs.length === 0) return duplicates;
  try {
    await coll.insertMany(docs as never[], { ordered: false });
  } catch (err) {
    const writeErrors = (err as { writeErrors?: { index: number; code?: number }[] }).writeErrors;
    if (!Array.isArray(writeErrors) || writeErrors.length === 0) {
      if (docs.length === 1 && isDuplicateKey(err)) return new Set([0]);
      throw err;
    }
    for (const e of writeErrors) {
      if (e.code !== 11000) throw err;
      duplicates.add(e.index);
    }
  }
  return duplicates;
}

/**
 * After many documents were written at once: the embedded store's planner statistics gathered now
 * (PgDb.analyze), not when autovacuum gets to it. MongoDB needs nothing.
 */
export async function refreshStatistics(db: Db, collections: string[]): Promise<void> {
  const analyze = (db as unknown as { analyze?: (names: string[]) => Promise<void> }).analyze;
  if (analyze) await analyze.call(db, collections);
}

export async function ensureIndexes(db: Db): Promise<void> {
  await Promise.all([
    db.collection('users').createIndex({ email: 1 }, { unique: true, name: 'email_unique' }),
    db.collection('signing_keys').createIndex({ created_at: -1 }, { name: 'created_at' }),
    db.collection('workspaces').createIndex({ owner_id: 1, _id: 1 }, { name: 'owner' }),
    db.collection('collections').createIndex({ owner_id: 1, _id: 1 }, { name: 'owner' }),
    db.collection('artifacts').createIndex({ collection_id: 1, order_key: 1 }, { unique: true, name: 'order_unique' }),
    db.collection('artifacts').createIndex({ content_type: 1, _id: 1 }, { name: 'content_type' }),
    // A list across containers reads each container's first page in creation order (ArtifactStore.list),
    // of one content type too (GET /mcp/servers, a workspace's automations).
    db.collection('artifacts').createIndex({ collection_id: 1, _id: 1 }, { name: 'container_recent' }),
    db.collection('artifacts').createIndex({ collection_id: 1, content_type: 1, _id: 1 }, { name: 'workspace_type' }),
    ...viewIndexes(db), // a view's orders (store/view-indexes.ts)
    db.collection('events').createIndex({ workspace_id: 1, _id: -1 }, { name: 'workspace_recent' }),
    db.collection('imports').createIndex({ workspace_id: 1, created_at: -1, _id: -1 }, { name: 'workspace_recent' }),
    db.collection('import_outcomes').createIndex({ import_id: 1, status: 1, _id: 1 }, { name: 'import_status' }),
    db.collection('relay_calls').createIndex({ host_id: 1, pending: 1, created_at: 1 }, { name: 'host_pending' }),
    db.collection('relay_calls').createIndex({ lineage: 1, attempt: -1 }, { name: 'lineage' }),
    db.collection('relay_claims').createIndex({ host_id: 1, claimed_at: -1 }, { name: 'host_recent' }),
    db.collection('mcp_tasks').createIndex({ subject: 1, expires_at: 1 }, { name: 'subject_expiry' }),
    db.collection('chat_answers').createIndex({ expires_at: 1 }, { name: 'expiry' }), // answers left by runs that died (store/chat-answers.ts)
    db.collection('chat_answers').createIndex({ chat_id: 1, updated_at: -1 }, { name: 'by_chat' }), // a chat's answers being written
    db.collection('events').createIndex({ workspace_id: 1, seq: 1 }, { name: 'workspace_seq' }),
    db.collection('subscriptions').createIndex({ workspace_id: 1, state: 1 }, { name: 'workspace_state' }),
    db.collection('subscriptions').createIndex({ owner_id: 1 }, { name: 'owner' }),
    db.collection('subscription_deliveries').createIndex({ subscription_id: 1, seq: -1 }, { name: 'recent' }),
    db.collection('workspaces').createIndex({ readers: 1 }, { name: 'readers' }),
    db.collection('collections').createIndex({ readers: 1 }, { name: 'readers' }),
    db.collection('server_credentials').createIndex({ owner_id: 1 }, { name: 'owner' }),
    db.collection('client_namespaces').createIndex({ owner_id: 1 }, { unique: true, name: 'one_per_owner' }),
    db.collection('api_keys').createIndex({ owner_id: 1 }, { name: 'owner' }),
    db.collection('consents').createIndex({ person_id: 1 }, { name: 'person' }),
    // A deleted credential's consents are forgotten (ConsentStore.forgetCredential).
    db.collection('consents').createIndex({ credential_id: 1, credential_kind: 1 }, { name: 'credential' }),
    db.collection('secrets').createIndex({ owner_id: 1, _id: 1 }, { name: 'owner' }),
    db.collection('connections').createIndex({ user_id: 1, created_at: 1 }, { name: 'user' }),
    db.collection('connection_attempts').createIndex({ attempt_id: 1 }, { unique: true, name: 'attempt' }),
    db.collection('connection_attempts').createIndex({ connection_id: 1 }, { name: 'connection' }),
    db.collection('search_changes').createIndex({ artifact_id: 1 }, { name: 'artifact' }),
    db.collection('artifact_versions').createIndex({ artifact_id: 1, version: 1 }, { name: 'artifact_version' }),
    // A commit writes at most one version of an artifact, however often its apply is retried.
    db.collection('artifact_versions').createIndex({ artifact_id: 1, 'provenance.commit_id': 1 }, { unique: true, name: 'one_per_commit' }),
    db
      .collection('artifact_versions')
      .createIndex({ 'provenance.source_artifact_id': 1, 'provenance.committed_at': -1 }, { name: 'source' }),
    db.collection('commits').createIndex({ rank: 1, created_at: -1 }, { name: 'pending_first' }),
    db.collection('commits').createIndex({ workspace_id: 1 }, { name: 'workspace' }),
    db.collection('commits').createIndex({ collection_id: 1 }, { name: 'collection' }),
    db.collection('commit_items').createIndex({ commit_id: 1, position: 1 }, { name: 'position' }),
    db.collection('commit_chunks').createIndex({ commit_id: 1 }, { name: 'commit' }),
    db.collection('commit_results').createIndex({ commit_id: 1, index: 1 }, { name: 'commit' }),
    db.collection('audit_log').createIndex({ person_id: 1, _id: -1 }, { name: 'person_recent' }),
    db.collection('audit_log').createIndex({ email: 1, _id: -1 }, { name: 'email_recent' }),
    db.collection('sign_in_events').createIndex({ account: 1, at: -1 }, { name: 'account_recent' }),
    db.collection('sign_in_events').createIndex({ at: 1 }, { name: 'expiry' }),
    // The servers of a workspace that define a content type (McpCatalogStore.typeServers), on every create.
    db.collection('mcp_catalog').createIndex({ workspace_id: 1, _id: 1 }, { name: 'workspace' }),
    // The indexing run takes the backlog oldest first, a batch at a time (embedding-backlog.ts take()).
    db.collection('embedding_backlog').createIndex({ queued_at: 1 }, { name: 'queued_at' }),
  ]);
}
