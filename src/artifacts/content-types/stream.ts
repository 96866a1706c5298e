import { z } from 'zod';
import { uuid } from '../../kernel/json/schemas.js';

/** Where the media comes from. `push`: a publisher sends RTMP to the platform's ingest URL with the stream key. */
const source = z.discriminatedUnion('mode', [z.strictObject({ mode: z.literal('push') })], {
  error: (issue) => (issue.input === undefined ? 'is required' : "must be { mode: 'push' }"),
});

/** What a session keeps, each as artifacts in the stream's workspace. */
const record = z
  .strictObject({
    /** MPEG-TS segments of about this many seconds (cut at key frames), stream-copied. */
    segments: z.strictObject({ seconds: z.int().min(2).max(600) }).optional(),
    /** A JPEG still every this many seconds. */
    stills: z.strictObject({ every_seconds: z.int().min(1).max(3600) }).optional(),
    /** A metadata artifact per take: codecs, resolution, frame rate, duration (ffprobe). */
    metadata: z.boolean().default(true),
  })
  .refine((r) => r.segments !== undefined || r.stills !== undefined || r.metadata, {
    message: 'must keep something: segments, stills or metadata',
  });

/**
 * `content` of an `application/vnd.platform.stream+json` artifact (SPEC §2.2, issue #36): an RTMP
 * source's configuration. The stream key is never in it: `key_secret_id` names a stored secret
 * (POST /secrets) of the person who writes the content.
 */
export const streamContent = z.strictObject({
  description: z.string().max(2000).optional(),
  source,
  key_secret_id: uuid(),
  record,
  /** A session ends by itself after this long (the operator's STREAM_MAX_DURATION_SECONDS caps it). */
  max_duration_seconds: z.int().min(10).max(86_400).default(3600),
});
export type StreamContent = z.infer<typeof streamContent>;
