import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hashPassword } from '../../identity/passwords.js';
import type { Config } from '../../kernel/config/env.js';
import type { Logger } from '../../kernel/logging/logger.js';
import { isDuplicateKey } from '../../store/mongo.js';
import type { UserStore } from '../../store/users.js';

export interface AdminBootstrap {
  email: string;
  /** Where generated credentials were written (development only). */
  credentialsFile?: string;
}

/**
 * Creates the first administrator when the platform has none: from PLATFORM_ADMIN_EMAIL and
 * PLATFORM_ADMIN_PASSWORD, or, in development when they are unset, from generated credentials written
 * to a file (mode 600) under the dev directory. An existing admin is never changed.
 */
export async function ensureAdmin(config: Config, users: UserStore, logger: Logger): Promise<AdminBootstrap | null> {
  let email = config.PLATFORM_ADMIN_EMAIL;
  let password = config.PLATFORM_ADMIN_PASSWORD;
  let credentialsFile: string | undefined;
  if (!email || !password) {
    if (!config.isDev) {
      if (!(await users.anyAdmin())) logger.warn('no administrator exists: set PLATFORM_ADMIN_EMAIL and PLATFORM_ADMIN_PASSWORD');
      return null;
    }
    credentialsFile = resolve(join(config.PLATFORM_DEV_DIR, 'admin-credentials.json'));
    if (!existsSync(credentialsFile)) {
      mkdirSync(config.PLATFORM_DEV_DIR, { recursive: true });
      const generated = { email: 'admin@platform.local', password: randomBytes(18).toString('base64url') };
      writeFileSync(credentialsFile, JSON.stringify(generated, null, 2) + '\n', { mode: 0o600 });
    }
    ({ email, password } = JSON.parse(readFileSync(credentialsFile, 'utf8')) as { email: string; password: string });
  }
  if (await users.findByEmail(email!)) return { email: email!, credentialsFile };
  try {
    await users.create(email!, await hashPassword(password!), true);
    logger.info({ email }, 'bootstrap administrator created');
  } catch (err) {
    if (!isDuplicateKey(err)) throw err; // another replica created it first
  }
  return { email: email!, credentialsFile };
}
