import { isSpanContextValid, trace } from '@opentelemetry/api';
import { pino, type Logger } from 'pino';

/** Paths pino blanks out wherever they appear in a log object: credentials never reach a log line. */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.client_secret',
  '*.access_token',
  '*.refresh_token',
  '*.token',
  '*.secret',
  '*.value',
  '*.private_key',
];

/**
 * The active span's ids on every line written inside a traced operation (a request, an activity), so a log
 * line leads to its trace: `trace_id`, `span_id`. Outside one (or with tracing off: no context manager is
 * registered, the lookup finds nothing) it adds nothing. A new object each time: pino merges the line's own
 * fields into it.
 */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const context = span.spanContext();
  return isSpanContextValid(context) ? { trace_id: context.traceId, span_id: context.spanId } : {};
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    { level, redact: { paths: redactPaths, censor: '[redacted]' }, base: { service: 'platform' }, mixin: traceFields },
    destination,
  );
}

export type { Logger };
