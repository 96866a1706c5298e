import { readFile, rm } from 'node:fs/promises';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { writeFollowers } from './write-followers.js';
import type { Db } from 'mongodb';
import { v5 as uuidv5 } from 'uuid';
import { grantsOf } from '../identity/grants.js';
import { principalOf } from '../identity/principal.js';
import { baseType, streamType } from '../artifacts/content-types/index.js';
import { streamContent, type StreamContent } from '../artifacts/content-types/stream.js';
import type { Config } from '../kernel/config/env.js';
import { probe } from '../media/probe.js';
import { record, recordPull, type RecordedFile, type RecorderEvents, type TakeSummary } from '../media/recorder.js';
import { checkedSource } from '../media/source.js';
import { listenInRange } from '../media/rtmp-ingest.js';
import { newWorkDir, removeStaleWorkDirs } from '../media/workdirs.js';
import { createDrafts, type NewDraft } from '../store/artifact-batch.js';
import { ArtifactStore } from '../store/artifacts.js';
import type { ArtifactDoc } from '../store/artifact-doc.js';
import { ContainerStore, type ContainerDoc } from '../store/containers.js';
import type { SearchChangeStore } from '../store/search-changes.js';
import type { SecretStore } from '../store/secrets.js';
import { keptIds, noStreamCounts, StreamSessionStore, type StreamCounts, type StreamSessionDoc } from '../store/stream-sessions.js';
import {
  streamRefusedFailure,
  streamWorkflowId,
  type RecordStreamInput,
  type StreamSessionResult,
} from '../workflows/contracts/stream-session.js';

/** Recorded files' artifact ids: one per session, take and file name, so a retried write makes it once. */
const recordedNamespace = '0d3b8a9e-5f1c-4e27-9b6a-2c8f41d7e593';
export const recordedArtifactId = (sessionId: string, take: number, name: string) =>
  uuidv5(`${sessionId}:${take}:${name}`, recordedNamespace);

/** Where a recorded draft came from: the stream and its session. */
const recordedSource = (streamId: string, sessionId: string) => ({ kind: 'stream' as const, stream_id: streamId, session_id: sessionId });

const refused = (message: string) => ApplicationFailure.nonRetryable(message, streamRefusedFailure);

const clock = (seconds: number) => {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
};

/** The ingest URL's host: the configured public host, else the bind address (a wildcard: localhost). */
function publicHost(config: Config): string {
  const host =
    config.STREAM_PUBLIC_HOST ?? (['0.0.0.0', '::'].includes(config.STREAM_BIND_ADDRESS) ? 'localhost' : config.STREAM_BIND_ADDRESS);
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * The activities of `streamSession`: the session's record begun and finished, and the recording
 * itself, which listens for RTMP on this worker's host, records through ffmpeg, and turns each
 * finished file into a draft in the stream's workspace.
 */
export function createStreamActivities(deps: { config: Config; db: Db; secrets: SecretStore; changes: SearchChangeStore }) {
  const { config, db } = deps;
  const sessions = new StreamSessionStore(db);
  const containers = new ContainerStore(db);
  const artifacts = new ArtifactStore(db);
  const workflowsFor = writeFollowers(config, db);

  /** The stream, its content, its workspace, and the requester's right to add to it, checked again. */
  async function checked(input: RecordStreamInput): Promise<{ doc: ArtifactDoc; content: StreamContent; workspace: ContainerDoc }> {
    const doc = await artifacts.current(input.streamId);
    if (!doc || baseType(doc.content_type) !== streamType || doc.collection_id !== input.workspaceId || doc.archived_at)
      throw refused(`Stream ${input.streamId} is gone from workspace ${input.workspaceId}.`);
    const parsed = streamContent.safeParse(JSON.parse(doc.content));
    if (!parsed.success) throw refused(`Stream ${input.streamId} no longer holds a valid configuration.`);
    const principal = principalOf(input.principal);
    const workspace = await containers.get('workspace', principal, input.workspaceId);
    if (!workspace || !grantsOf(workspace, principal.subject).has('C'))
      throw refused(`${principal.subject} may no longer add to workspace ${input.workspaceId}.`);
    return { doc, content: parsed.data, workspace };
  }

  /** Writes drafts made from recorded files, with what follows any create (search, embeddings, events). */
  async function keep(subject: string, workspace: ContainerDoc, drafts: NewDraft[]): Promise<void> {
    const context = Context.current();
    const { docs, claims } = await createDrafts(db, subject, workspace, drafts);
    const { events, indexing } = workflowsFor(context.client);
    await Promise.all([
      deps.changes.record(...docs.map((d) => d._id)),
      Promise.all(docs.map((d) => indexing.start(d))),
      events.relayPaced(workspace._id, claims, (err) =>
        context.log.warn('stream events not relayed; the sweeper relays them', { error: (err as Error).message }),
      ),
    ]);
  }

  return {
    /** The session's record, as it starts (a retry of this step leaves a record it made as it is). */
    async beginStream(input: RecordStreamInput): Promise<void> {
      const existing = await sessions.get(input.streamId);
      if (existing?.session_id === input.sessionId) return;
      const now = new Date();
      await sessions.begin({
        _id: input.streamId,
        session_id: input.sessionId,
        workflow_id: streamWorkflowId(input.streamId),
        workspace_id: input.workspaceId,
        requested_by: input.principal.subject,
        principal: input.principal,
        state: 'starting',
        ingest_url: null,
        started_at: now,
        ends_by: new Date(input.endsBy),
        ended_at: null,
        publisher: null,
        counts: noStreamCounts,
        recorded: { segments: [], stills: [], metadata: [] },
        error: null,
        updated_at: now,
      });
    },

    /**
     * Listens and records until the session's deadline or its cancellation (a stop), heartbeating.
     * Every ffmpeg it started is gone, and its working directory removed, when it returns or throws.
     */
    async recordStream(input: RecordStreamInput): Promise<void> {
      const context = Context.current();
      const { doc, content, workspace } = await checked(input);
      const owner = doc.secrets_owner ?? doc.provenance.created_by;
      // Another's secret reveals nothing.
      const key = content.key_secret_id ? await deps.secrets.reveal(owner, content.key_secret_id) : null;
      if (content.key_secret_id && !key) throw refused(`The stream key's secret ${content.key_secret_id} is gone, or not its writer's.`);
      if (content.source.mode === 'push' && !key) throw refused('A pushed stream needs its key.');
      // This attempt owns the record from now on: an older one still running (a missed heartbeat made
      // Temporal start this one) finds its next write refused, and stops.
      const attempt = context.info.attempt;
      if (!(await sessions.claim(input.streamId, input.sessionId, attempt)))
        throw refused('The session was replaced by a newer one, or a newer attempt records it.');
      const record0 = await sessions.get(input.streamId);
      if (!record0 || record0.session_id !== input.sessionId) throw refused('The session was replaced by a newer one.');
      const counts: StreamCounts = { ...noStreamCounts, ...record0.counts };
      const recorded = {
        segments: [...record0.recorded.segments],
        stills: [...record0.recorded.stills],
        metadata: [...record0.recorded.metadata],
      };
      const pull = content.source.mode === 'pull' ? content.source.url : null;
      const [from, to] = config.STREAM_PORTS.split('-').map(Number) as [number, number];
      // What sessions of a killed worker left on this host: older than any session runs (and its retries).
      const stale = await removeStaleWorkDirs((config.STREAM_MAX_DURATION_SECONDS + 3600) * 1000);
      if (stale > 0) context.log.info('stale stream working directories removed', { count: stale });
      const workDir = await newWorkDir();
      // Pushed: a listener of our own. Pulled: none, ffmpeg connects out.
      const server =
        pull === null
          ? await listenInRange(config.STREAM_BIND_ADDRESS, from, to).catch(async (err: Error) => {
              await rm(workDir, { recursive: true, force: true });
              throw err;
            })
          : null;
      const stop = new AbortController();
      /** Set when the session may not go on (checked again at each take): the recording stops, then this is thrown. */
      let refusal: Error | null = null;
      const onCancel = () => stop.abort();
      context.cancellationSignal.addEventListener('abort', onCancel, { once: true });
      const deadline = setTimeout(() => stop.abort(), Math.max(0, input.endsBy - Date.now()));
      const beat = setInterval(() => context.heartbeat({ takes: counts.takes }), 3000);
      const superseded = () => {
        refusal ??= refused('A newer attempt records this session.');
        stop.abort();
      };
      const save = async (fields: Partial<StreamSessionDoc>) => {
        if (!(await sessions.update(input.streamId, input.sessionId, { counts: { ...counts }, recorded, ...fields }, attempt)))
          superseded();
      };
      const nextTake = async () => {
        const take = await sessions.reserveTake(input.streamId, input.sessionId, attempt);
        if (take === null) superseded();
        counts.takes = take ?? counts.takes + 1; // a superseded attempt's take writes nothing (refusal is set)
        return counts.takes;
      };
      const title = doc.title.slice(0, 300);
      const origin = (take: number, file: string, mime: string) => ({
        stream: { id: input.streamId, session_id: input.sessionId, take, file },
        imported_from: { stream_id: input.streamId, mime_type: mime, encoding: 'base64' },
      });
      const remember = (kind: keyof typeof recorded, id: string) => {
        recorded[kind] = [...recorded[kind].filter((x) => x !== id), id].slice(-keptIds);
      };
      try {
        const port = server ? (server.address() as { port: number }).port : null;
        await save(
          port !== null
            ? { state: 'listening', ingest_url: `rtmp://${publicHost(config)}:${port}/live`, error: null }
            : { state: 'connecting', ingest_url: null, error: null },
        );
        const plan = {
          segmentSeconds: content.record.segments?.seconds ?? 10,
          stillEverySeconds: content.record.stills?.every_seconds ?? null,
          endsBy: input.endsBy,
        };
        const events: RecorderEvents = {
          receiving: async (take, remote) => {
            // The stream and the requester's grant, checked again at each take, as an import does at each batch.
            await checked(input).catch((err: Error) => {
              refusal = err;
              stop.abort();
            });
            counts.takes = Math.max(counts.takes, take);
            await save({ state: 'receiving', publisher: remote, error: null });
          },
          listening: async () => {
            await save({ state: 'listening', publisher: null });
          },
          refused: async (reason, remote) => {
            counts.refused++;
            context.log.info('stream publisher refused', { streamId: input.streamId, reason, remote });
            await save({});
          },
          file: async (file: RecordedFile) => {
            if (refusal) return; // nothing more is written for a session that may not go on
            const wanted = file.kind === 'segment' ? content.record.segments !== undefined : content.record.stills !== undefined;
            if (!wanted) return;
            if (file.bytes > config.STREAM_MAX_FILE_BYTES) {
              counts.too_large++;
              return void (await save({}));
            }
            const bytes = await readFile(file.path);
            const id = recordedArtifactId(input.sessionId, file.take, file.name);
            const mime = file.kind === 'segment' ? 'video/mp2t' : 'image/jpeg';
            const index = Number(/\d+/.exec(file.name)?.[0] ?? 0);
            const name =
              file.kind === 'segment'
                ? `${title}: segment ${index + 1} of take ${file.take} (${clock(file.start ?? 0)}–${clock(file.end ?? 0)})`
                : `${title}: still at ${clock((index - 1) * content.record.stills!.every_seconds)} of take ${file.take}`;
            const draft: NewDraft = {
              id,
              title: name,
              content_type: mime,
              content: bytes.toString('base64'),
              context: {
                ...origin(file.take, file.name, mime),
                ...(file.kind === 'segment' ? { start_seconds: file.start, end_seconds: file.end } : {}),
                bytes: file.bytes,
              },
              source: recordedSource(input.streamId, input.sessionId),
              search_text: name, // the title, not the base64
            };
            await keep(input.principal.subject, workspace, [draft]);
            if (file.kind === 'segment') counts.segments++;
            else counts.stills++;
            remember(file.kind === 'segment' ? 'segments' : 'stills', id);
            await save({});
            context.heartbeat({ takes: counts.takes });
          },
          takeEnded: async (summary: TakeSummary) => {
            if (refusal) return;
            if (content.record.metadata) {
              const media = summary.firstSegment ? await probe(config.STREAM_FFPROBE_PATH, summary.firstSegment) : null;
              const meta = {
                stream_id: input.streamId,
                session_id: input.sessionId,
                take: summary.take,
                duration_seconds: Math.round(summary.seconds * 1000) / 1000,
                segments: summary.segments,
                stills: summary.stills,
                media,
                ...(summary.error ? { error: summary.error } : {}),
              };
              const id = recordedArtifactId(input.sessionId, summary.take, 'metadata.json');
              await keep(input.principal.subject, workspace, [
                {
                  id,
                  title: `${title}: take ${summary.take} metadata`,
                  content_type: 'application/json',
                  content: JSON.stringify(meta),
                  context: { stream: { id: input.streamId, session_id: input.sessionId, take: summary.take, file: 'metadata.json' } },
                  source: recordedSource(input.streamId, input.sessionId),
                },
              ]);
              counts.metadata++;
              remember('metadata', id);
            }
            await save({ publisher: null });
          },
        };
        const common = { plan, workDir, ffmpegPath: config.STREAM_FFMPEG_PATH, firstTake: counts.takes, nextTake, signal: stop.signal };
        if (server) await record({ ...common, server, key: key!, events });
        else
          await recordPull({
            ...common,
            // Checked again before every connection: the host may resolve elsewhere by now.
            resolve: () => checkedSource(pull!, key, config.STREAM_PULL_ALLOW),
            redact: key ? [key] : [],
            events: {
              ...events,
              listening: async () => {},
              unreachable: async (message) => void (await save({ state: 'connecting', publisher: null, error: message.slice(0, 500) })),
            },
          });
        if (refusal) throw refusal;
        // Cancelled by anything but the workflow's stop (this worker shutting down, a heartbeat timeout)
        // before the deadline: the session is not over. What was recorded is kept; failing here lets
        // Temporal run the recording again, on this worker once back or on another, from the next take.
        const reason = context.cancellationDetails;
        if (context.cancellationSignal.aborted && !reason?.cancelRequested && Date.now() < input.endsBy) {
          await save({ state: 'starting', ingest_url: null, publisher: null });
          throw ApplicationFailure.retryable(
            'The recording was interrupted (its worker stopped); it resumes on a worker.',
            'stream-interrupted',
          );
        }
      } finally {
        clearTimeout(deadline);
        clearInterval(beat);
        context.cancellationSignal.removeEventListener('abort', onCancel);
        if (server) await new Promise((r) => server.close(r));
        await rm(workDir, { recursive: true, force: true });
      }
    },

    /** The session's record, as it ended. */
    async finishStream(input: { streamId: string; sessionId: string } & StreamSessionResult): Promise<void> {
      await sessions.update(input.streamId, input.sessionId, {
        state: input.state,
        error: input.error,
        ended_at: new Date(),
        publisher: null,
      });
    },
  };
}
