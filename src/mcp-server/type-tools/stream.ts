import { z } from 'zod';
import { uuid } from '../../kernel/json/schemas.js';
import { startStream, stopStream, streamStatus } from '../../operations/streams.js';
import { presentStreamStatus, streamStatusSchema } from '../../presenters/streams.js';
import { readOnly, writes, type ToolDef } from '../tool-def.js';

const streamInput = z.strictObject({
  stream_id: uuid('must be the stream artifact id (a UUID)').describe('The stream artifact id (application/vnd.platform.stream+json).'),
});
type StreamInput = z.output<typeof streamInput>;

/** The stream content type's tools on the platform's own MCP server (issue #36). */
export const streamTools: ToolDef[] = [
  {
    name: 'stream_status',
    title: "Read a stream's live status",
    description:
      "Returns a stream's live status (idle, starting, listening, receiving, ended, failed), its ingest URL while live, when its latest session started and ends, how many takes, segments, stills and metadata it recorded, and the ids of the newest recorded artifacts (read them with get_artifact). The stream key is never shown.",
    access: 'stream:read',
    alsoNeeds: ['artifact:read'], // the stream itself is an artifact the caller reads
    input: streamInput,
    output: streamStatusSchema.extend({}),
    annotations: readOnly,
    icon: '📡',
    run: async (ctx, input: StreamInput) => presentStreamStatus(input.stream_id, await streamStatus(ctx, input.stream_id)),
  },
  {
    name: 'start_stream',
    title: 'Start recording a stream',
    description:
      "Starts a stream's live session and records what its configuration keeps (segments, stills, metadata) as drafts in the stream's workspace. A pushed stream listens for RTMP at the returned ingest_url, where a publisher sends the stream with the stream key (the value of the secret its configuration names) as the stream name; a pulled stream connects to its source and reconnects when it ends. One session per stream at a time.",
    access: 'stream:ingest',
    alsoNeeds: ['artifact:read'],
    input: streamInput,
    output: streamStatusSchema.extend({}),
    annotations: writes(false, false),
    icon: '⏺️',
    run: async (ctx, input: StreamInput) => presentStreamStatus(input.stream_id, (await startStream(ctx, input.stream_id)).doc),
  },
  {
    name: 'stop_stream',
    title: 'Stop recording a stream',
    description: "Ends a stream's live session: the publisher (or the source) is disconnected, and what was recorded so far is kept.",
    access: 'stream:ingest',
    alsoNeeds: ['artifact:read'],
    input: streamInput,
    output: streamStatusSchema.extend({}),
    annotations: writes(false, true),
    icon: '⏹️',
    run: async (ctx, input: StreamInput) => presentStreamStatus(input.stream_id, (await stopStream(ctx, input.stream_id)).doc),
  },
];
