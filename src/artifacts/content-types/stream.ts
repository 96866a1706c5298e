import { z } from 'zod';
import { uuid } from '../../kernel/json/schemas.js';

/**
 * An RTMP source the platform pulls: rtmp:// or rtmps://, a host, an application path; no credentials,
 * query or fragment in it (the stream key, when the source needs one, is the secret's, appended as the
 * stream name). Its addresses are checked when a session connects (no loopback or private address
 * unless the operator allows it, STREAM_PULL_ALLOW).
 */
export const pullUrl = z
  .string()
  .max(2048)
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return void ctx.addIssue({ code: 'custom', message: 'must be an rtmp:// or rtmps:// URL' });
    }
    const problem =
      url.protocol !== 'rtmp:' && url.protocol !== 'rtmps:'
        ? 'must be an rtmp:// or rtmps:// URL'
        : !url.hostname
          ? 'must name a host'
          : url.username || url.password
            ? 'must not carry credentials (put the stream key in a secret: key_secret_id)'
            : url.search || url.hash
              ? 'must not have a query or a fragment'
              : url.pathname.length <= 1
                ? 'must name the application, e.g. rtmp://host/live'
                : null;
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/**
 * Where the media comes from. `push`: a publisher sends RTMP to the platform's ingest URL with the
 * stream key. `pull`: the platform plays `url` (with the key, if any, as the stream name) and records it.
 */
const source = z.discriminatedUnion(
  'mode',
  [z.strictObject({ mode: z.literal('push') }), z.strictObject({ mode: z.literal('pull'), url: pullUrl })],
  {
    error: (issue) => (issue.input === undefined ? 'is required' : "must be { mode: 'push' } or { mode: 'pull', url }"),
  },
);

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
export const streamContent = z
  .strictObject({
    description: z.string().max(2000).optional(),
    source,
    /** Push: required (publishers must send it). Pull: the source's stream name when it is secret; else the URL names the stream. */
    key_secret_id: uuid().optional(),
    record,
    /** A session ends by itself after this long (the operator's STREAM_MAX_DURATION_SECONDS caps it). */
    max_duration_seconds: z.int().min(10).max(86_400).default(3600),
  })
  .superRefine((c, ctx) => {
    if (c.source.mode === 'push' && c.key_secret_id === undefined)
      ctx.addIssue({ code: 'custom', path: ['key_secret_id'], message: 'is required for a pushed stream: publishers must send its key' });
  });
export type StreamContent = z.infer<typeof streamContent>;
