import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/env.js';

/** The platform's key-encryption keys (KEK), raw: the current one first, then the previous ones (rotation). */
export interface KeyEncryptionKeys {
  current: Buffer;
  previous: Buffer[];
}

/**
 * The KEKs, for the key ring (src/main/bootstrap/master-key.ts) and the payload codec: PLATFORM_MASTER_KEY and
 * PLATFORM_PREVIOUS_MASTER_KEYS, or in development the key file under PLATFORM_DEV_DIR, written once by
 * whichever process comes first. The codec needs the raw keys, which the KeyRing keeps to itself, to
 * derive its own.
 */
export function keyEncryptionKeys(config: Config): KeyEncryptionKeys {
  const previous = (config.PLATFORM_PREVIOUS_MASTER_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .map((k) => Buffer.from(k, 'base64'));
  if (config.PLATFORM_MASTER_KEY) return { current: Buffer.from(config.PLATFORM_MASTER_KEY, 'base64'), previous };
  if (!config.isDev) throw new Error('PLATFORM_MASTER_KEY is required outside development');
  const file = join(config.PLATFORM_DEV_DIR, 'master.key');
  if (!existsSync(file)) {
    mkdirSync(config.PLATFORM_DEV_DIR, { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another process wrote it first
    }
  }
  return { current: Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'), previous };
}
