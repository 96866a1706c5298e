import { createHash } from 'node:crypto';

/**
 * A UUIDv7 fixed by a time and a key: ordered like any event id, and the same on every retry of the
 * write it reports (the time is the write's own, as stored).
 */
export function stableEventId(ms: number, key: string): string {
  const hash = createHash('sha256').update(key).digest('hex');
  const time = Math.max(0, ms).toString(16).padStart(12, '0');
  const variant = ((parseInt(hash[3]!, 16) & 0x3) | 0x8).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${hash.slice(0, 3)}-${variant}${hash.slice(4, 7)}-${hash.slice(7, 19)}`;
}
