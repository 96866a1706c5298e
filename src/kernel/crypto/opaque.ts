import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A random base-62 string carrying `bytes` bytes of entropy (rejection sampling, no modulo bias). */
export function randomBase62(bytes: number): string {
  const length = Math.ceil((bytes * 8) / Math.log2(62));
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length)) {
      if (b < 248 && out.length < length) out += base62[b % 62];
    }
  }
  return out;
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
