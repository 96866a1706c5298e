// Standard Webhooks signing (https://www.standardwebhooks.com/): the platform generates the secret,
// `whsec_<base64 of 32 random bytes>`, and signs `${id}.${timestamp}.${body}` with HMAC-SHA256 keyed by
// the decoded bytes. Headers: webhook-id (the event id, stable across retries, for deduplication),
// webhook-timestamp (Unix seconds), webhook-signature (`v1,<base64>`; space-separated if several).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const secretPrefix = 'whsec_';

export const newWebhookSecret = () => `${secretPrefix}${randomBytes(32).toString('base64')}`;

const keyOf = (secret: string) => Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, 'base64');

export function signatureOf(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The three headers of one delivery; several secrets (during a rotation) give one signature each, space-separated. */
export function webhookHeaders(secrets: string[], id: string, body: string, now = new Date()): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signatureOf(secret, id, timestamp, body)).join(' '),
  };
}

/** What a receiver checks: one of the `v1` signatures matches, and the timestamp is within `toleranceSeconds`. */
export function verifyWebhook(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  now = new Date(),
  toleranceSeconds = 300,
): boolean {
  const timestamp = Number(headers.timestamp);
  if (!Number.isSafeInteger(timestamp) || Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureOf(secret, headers.id, timestamp, body));
  return headers.signature.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
