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

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: redactPaths, censor: '[redacted]' }, base: { service: 'platform' } }, destination);
}

export type { Logger };
