import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../kernel/config/env.js';
import { KeyRing } from '../../kernel/crypto/envelope.js';
import type { Logger } from '../../kernel/logging/logger.js';

/**
 * The key-encryption key. Production requires PLATFORM_MASTER_KEY; development generates one once
 * under the dev directory and says so, since losing it makes sealed data unreadable.
 */
export function loadKeyRing(config: Config, logger: Logger): KeyRing {
  const previous = (config.PLATFORM_PREVIOUS_MASTER_KEYS ?? '')
    .split(',')
    .filter(Boolean)
    .map((k) => Buffer.from(k.trim(), 'base64'));
  if (config.PLATFORM_MASTER_KEY) return new KeyRing(Buffer.from(config.PLATFORM_MASTER_KEY, 'base64'), previous);
  const file = join(config.PLATFORM_DEV_DIR, 'master.key');
  if (!existsSync(file)) {
    mkdirSync(config.PLATFORM_DEV_DIR, { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another process wrote it first
    }
  }
  logger.warn({ file }, 'PLATFORM_MASTER_KEY is not set: using a development key-encryption key from a file');
  return new KeyRing(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'), previous);
}
