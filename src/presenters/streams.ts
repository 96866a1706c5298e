import { z } from 'zod';
import { streamStates, type StreamSessionDoc } from '../store/stream-sessions.js';
import { count, timestamp } from './schemas.js';

const ids = z.array(z.string()).describe('The newest recorded artifact ids of this kind (at most 50; the count is complete).');

export const streamStatusSchema = z
  .object({
    stream_id: z.string(),
    state: z
      .enum(['idle', ...streamStates])
      .describe(
        'idle: never started. starting: the session is being set up. listening: waiting for a publisher (push). connecting: connecting to the source, or waiting to try again (pull; error says why). receiving: recording. ended: stopped or past its duration. failed: see error.',
      ),
    session_id: z.string().nullable(),
    ingest_url: z
      .string()
      .nullable()
      .describe(
        'While live: where to publish RTMP, with the stream key as the stream name (`<ingest_url>/<key>`). The key itself is never shown.',
      ),
    started_at: timestamp.nullable(),
    ends_by: timestamp.nullable().describe('When the session ends by itself (its max_duration_seconds).'),
    ended_at: timestamp.nullable(),
    counts: z.object({
      takes: count.describe('Publishes recorded (a publisher that reconnects starts a new take).'),
      segments: count,
      stills: count,
      metadata: count,
      refused: count.describe('Publishers turned away: a wrong stream key, not RTMP, or no publish in time.'),
      too_large: count.describe('Recorded files larger than the platform keeps as artifacts.'),
    }),
    recorded: z.object({ segments: ids, stills: ids, metadata: ids }),
    error: z.string().nullable().describe('Why the session failed; for a pulled source, why its last connection ended.'),
    updated_at: timestamp.nullable(),
  })
  .meta({ id: 'StreamStatus' });
export type StreamStatusView = z.output<typeof streamStatusSchema>;

/** A stream's status: its latest session's record, or idle when it never had one. */
export function presentStreamStatus(streamId: string, doc: StreamSessionDoc | null): StreamStatusView {
  const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
  return {
    stream_id: streamId,
    state: doc?.state ?? 'idle',
    session_id: doc?.session_id ?? null,
    ingest_url: doc && ['listening', 'receiving'].includes(doc.state) ? doc.ingest_url : null,
    started_at: iso(doc?.started_at),
    ends_by: iso(doc?.ends_by),
    ended_at: iso(doc?.ended_at),
    counts: {
      takes: doc?.counts.takes ?? 0,
      segments: doc?.counts.segments ?? 0,
      stills: doc?.counts.stills ?? 0,
      metadata: doc?.counts.metadata ?? 0,
      refused: doc?.counts.refused ?? 0,
      too_large: doc?.counts.too_large ?? 0,
    },
    recorded: {
      segments: doc?.recorded.segments ?? [],
      stills: doc?.recorded.stills ?? [],
      metadata: doc?.recorded.metadata ?? [],
    },
    error: doc?.error ?? null,
    updated_at: iso(doc?.updated_at),
  };
}
