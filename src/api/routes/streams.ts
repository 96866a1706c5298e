import { presentStreamStatus, streamStatusSchema } from '../../presenters/streams.js';
import { startStream, stopStream, streamStatus } from '../../operations/streams.js';
import { byStatus } from '../openapi/responses.js';
import { artifactId } from '../artifact-access.js';
import type { RouteDef } from '../route.js';
import { followStreamStatus } from './stream-status-events.js';

/** REST routes of the stream content type (issue #36). */
export const streamRoutes: RouteDef[] = [
  {
    method: 'post',
    path: '/artifacts/:id/op/start',
    access: 'stream:ingest',
    doc: {
      summary: 'Start a live session of a stream: listen for RTMP (or pull its source) and record',
      description:
        "Starts the stream's session (one at a time) and answers its status once it listens: publish RTMP to `ingest_url` with the stream key (the value of the secret `key_secret_id` names) as the stream name, e.g. `ffmpeg … -f flv <ingest_url>/<key>`; a pulled stream (source.mode pull) connects to its source instead (409 stream-source-refused when its host is an address the platform may not reach). Live sessions are capped: 429 stream-sessions-per-person over STREAM_MAX_SESSIONS_PER_PERSON of the caller's, 409 stream-sessions-full over STREAM_MAX_SESSIONS in all. What the configuration keeps (segments, stills, metadata) becomes drafts in the stream's workspace, written as the caller, who must be able to add to it. 202 when the session is still setting up: follow GET /artifacts/{id}/status.",
      status: 200,
      errors: [409, 429, 503],
      response: byStatus({ 200: streamStatusSchema, 202: streamStatusSchema }),
    },
    handler: async (ctx) => {
      const id = artifactId(ctx);
      const { settled, doc } = await startStream(ctx, id);
      ctx.status = settled ? 200 : 202;
      ctx.body = presentStreamStatus(id, doc);
    },
  },
  {
    method: 'post',
    path: '/artifacts/:id/op/stop',
    access: 'stream:ingest',
    doc: {
      summary: "Stop a stream's live session",
      description:
        'Ends the session: the publisher is disconnected, the files in progress are closed and kept. Answers the status once ended (202 while it is still closing).',
      status: 200,
      errors: [409, 503],
      response: byStatus({ 200: streamStatusSchema, 202: streamStatusSchema }),
    },
    handler: async (ctx) => {
      const id = artifactId(ctx);
      const { settled, doc } = await stopStream(ctx, id);
      ctx.status = settled ? 200 : 202;
      ctx.body = presentStreamStatus(id, doc);
    },
  },
  {
    method: 'get',
    path: '/artifacts/:id/status',
    access: 'stream:read',
    doc: {
      summary: "A stream's live status and what its latest session recorded",
      errors: [409],
      response: streamStatusSchema,
    },
    handler: async (ctx) => {
      const id = artifactId(ctx);
      ctx.body = presentStreamStatus(id, await streamStatus(ctx, id));
    },
  },
  {
    method: 'get',
    path: '/artifacts/:id/status/stream',
    access: 'stream:read',
    doc: {
      summary: "A stream's status as it changes (Server-Sent Events: a `status` event each time)",
      description:
        'The first event holds the current status (as GET /artifacts/{id}/status answers it); another follows whenever it changes: a session starting, a publisher connecting or refused, a file recorded, the session ending. An `error` event (problem+json) ends the stream when the stream is gone or no longer readable.',
      errors: [409, 429],
      produces: 'text/event-stream',
    },
    handler: async (ctx) => {
      await followStreamStatus(ctx, artifactId(ctx));
    },
  },
];
