import { v7 as uuidv7 } from 'uuid';
import { requireGrant } from '../identity/grants.js';
import { snapshotOf } from '../identity/principal.js';
import { baseType, streamType } from '../artifacts/content-types/index.js';
import { streamContent, type StreamContent } from '../artifacts/content-types/stream.js';
import { Problem, problems } from '../kernel/errors/problem.js';
import { checkedSource, SourceRefused } from '../media/source.js';
import { liveStates, type StreamSessionDoc } from '../store/stream-sessions.js';
import type { ArtifactDoc } from '../store/artifact-doc.js';
import type { ContainerDoc } from '../store/containers.js';
import { requireTypeScope, visibleArtifact } from './artifacts.js';
import type { OperationContext } from './services.js';

/** How long start and stop wait for the session to say it is listening, or ended, before answering 202. */
const settleWaitMs = 15_000;
/** What a stream key must look like: long enough to guess never, plain enough for any encoder's URL. */
export const streamKeyPattern = /^[A-Za-z0-9_-]{16,128}$/;
/** A pulled source's stream name: URL-safe as it is (the source chose it). */
export const pulledKeyPattern = /^[A-Za-z0-9._~-]{1,512}$/;

/** A visible stream artifact, or 403 (no artifact:read of streams), 404 (invisible), 409 (another type). */
export async function visibleStream(ctx: OperationContext, id: string): Promise<{ doc: ArtifactDoc; container: ContainerDoc }> {
  // The stream is an artifact the caller reads: without that scope, a 403 whatever the id (nothing is looked up).
  requireTypeScope(ctx.state.principal, 'artifact:read', streamType);
  const found = await visibleArtifact(ctx, id);
  if (baseType(found.doc.content_type) !== streamType)
    throw problems.conflict('not-a-stream', `Artifact ${id} is ${found.doc.content_type}, not a stream (${streamType}).`);
  return found;
}

/**
 * A stream the caller may run: in a workspace (a collection's stream is a version, never live), not
 * archived, and the caller may add to its workspace (a session writes what it records there, as them).
 */
async function runnableStream(ctx: OperationContext, id: string): Promise<{ doc: ArtifactDoc; content: StreamContent }> {
  const { doc, container } = await visibleStream(ctx, id);
  if (container.kind !== 'workspace')
    throw problems.conflict('stream-in-collection', `Stream ${id} is in a collection: run its draft in a workspace.`);
  requireGrant(container, ctx.state.principal, 'C');
  if (doc.archived_at) throw problems.conflict('archived-artifact', `Stream ${id} is archived; unarchive it to run it.`);
  return { doc, content: streamContent.parse(JSON.parse(doc.content)) };
}

/** Polls the session's record until `done` holds of it or the wait ends; the last record read. */
async function settle(
  ctx: OperationContext,
  id: string,
  done: (doc: StreamSessionDoc | null) => boolean,
): Promise<StreamSessionDoc | null> {
  const until = Date.now() + settleWaitMs;
  let doc = await ctx.services.streamSessions.get(id);
  while (!done(doc) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 200));
    doc = await ctx.services.streamSessions.get(id);
  }
  return doc;
}

/**
 * Starts a live session of the stream: a durable workflow whose activity listens for RTMP on a
 * worker's host. Answers once it listens (or, slower, still starting). One session per stream: 409
 * while one runs.
 */
export async function startStream(ctx: OperationContext, id: string): Promise<{ settled: boolean; doc: StreamSessionDoc | null }> {
  const { doc, content } = await runnableStream(ctx, id);
  const { config, secrets, streamWorkflows, logger } = ctx.services;
  // The key is the secret of whoever last wrote the content: checked now for a clear answer, and again by the session.
  const key = content.key_secret_id ? await secrets.reveal(doc.secrets_owner ?? doc.provenance.created_by, content.key_secret_id) : null;
  if (content.key_secret_id && key === null)
    throw problems.conflict(
      'stream-key-missing',
      `The stream key's secret ${content.key_secret_id} does not exist, or is not the stream's writer's: store it with POST /secrets and update key_secret_id.`,
    );
  // The key travels as the RTMP stream name: it must survive every encoder's URL handling as it is.
  const pattern = content.source.mode === 'push' ? streamKeyPattern : pulledKeyPattern;
  if (key !== null && !pattern.test(key))
    throw problems.conflict(
      'stream-key-unusable',
      content.source.mode === 'push'
        ? `The stream key in secret ${content.key_secret_id} must be 16 to 128 characters of A-Z, a-z, 0-9, - and _ (a publisher sends it as the stream name).`
        : `The stream key in secret ${content.key_secret_id} must be 1 to 512 characters of A-Z, a-z, 0-9, -, _, . and ~ (it is the source's stream name in its URL).`,
    );
  if (content.source.mode === 'pull') {
    // Checked now for a clear answer; the session checks again at every connection.
    try {
      await checkedSource(content.source.url, null, config.STREAM_PULL_ALLOW);
    } catch (err) {
      if (!(err instanceof SourceRefused)) throw err;
      throw problems.conflict('stream-source-refused', err.message);
    }
  }
  // Each live session holds a worker activity slot for up to its whole duration: capped in all and per person.
  // Counted, not reserved: two starts at the same instant may both pass, one over the cap (the workflow id
  // still allows one session per stream).
  const live = await ctx.services.streamSessions.countLive(ctx.state.principal.subject);
  if (live.person >= config.STREAM_MAX_SESSIONS_PER_PERSON)
    throw new Problem(
      429,
      'stream-sessions-per-person',
      'Too many live stream sessions',
      `You have ${live.person} live stream sessions, the most one person may run (STREAM_MAX_SESSIONS_PER_PERSON): stop one first.`,
      { limit: config.STREAM_MAX_SESSIONS_PER_PERSON },
    );
  if (live.total >= config.STREAM_MAX_SESSIONS)
    throw problems.conflict(
      'stream-sessions-full',
      `The platform runs ${live.total} live stream sessions, its most (STREAM_MAX_SESSIONS): retry when one has ended.`,
    );
  const sessionId = uuidv7();
  let started;
  try {
    started = await streamWorkflows.start({
      streamId: id,
      sessionId,
      workspaceId: doc.collection_id,
      principal: snapshotOf(ctx.state.principal),
      maxSeconds: Math.min(content.max_duration_seconds, config.STREAM_MAX_DURATION_SECONDS),
    });
  } catch (err) {
    logger.error({ request_id: ctx.state.requestId, err }, 'stream session not started');
    throw problems.unavailable('The session could not be started: Temporal did not accept it. Retry.');
  }
  if (!started)
    throw problems.conflict(
      'stream-session-running',
      `Stream ${id} has a live session already: stop it first (POST /artifacts/${id}/op/stop).`,
    );
  const settled = await settle(ctx, id, (d) => d?.session_id === sessionId && d.state !== 'starting');
  return { settled: settled?.session_id === sessionId && settled.state !== 'starting', doc: settled };
}

/** Stops the stream's live session: what it recorded so far is kept. 409 when none is live. */
export async function stopStream(ctx: OperationContext, id: string): Promise<{ settled: boolean; doc: StreamSessionDoc | null }> {
  // Stopping writes nothing: an archived stream's session can be stopped, and whoever started it may
  // stop it without the grant to add to the workspace (lost since, perhaps).
  const { container } = await visibleStream(ctx, id);
  const { streamWorkflows, streamSessions, logger } = ctx.services;
  const before = await streamSessions.get(id);
  if (before?.requested_by !== ctx.state.principal.subject) requireGrant(container, ctx.state.principal, 'C');
  let signalled;
  try {
    signalled = await streamWorkflows.stop(id);
  } catch (err) {
    logger.error({ request_id: ctx.state.requestId, err }, 'stream session not stopped');
    throw problems.unavailable('The session could not be told to stop: Temporal did not answer. Retry.');
  }
  if (!signalled) throw problems.conflict('stream-not-live', `Stream ${id} has no live session.`);
  const done = (d: StreamSessionDoc | null) => !d || !liveStates.includes(d.state) || d.session_id !== before?.session_id;
  const doc = await settle(ctx, id, done);
  return { settled: done(doc), doc };
}

/** The stream's latest session's record (null: it never ran). */
export async function streamStatus(ctx: OperationContext, id: string): Promise<StreamSessionDoc | null> {
  await visibleStream(ctx, id);
  return ctx.services.streamSessions.get(id);
}
