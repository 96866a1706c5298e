import type { Config } from '../../kernel/config/env.js';
import { keyEncryptionKeys } from '../../kernel/crypto/key-encryption-keys.js';
import { KeyRing } from '../../kernel/crypto/envelope.js';
import type { Logger } from '../../kernel/logging/logger.js';

/**
 * The key-encryption key. Production requires PLATFORM_MASTER_KEY; development generates one once
 * under the dev directory and says so, since losing it makes sealed data unreadable.
 */
export function loadKeyRing(config: Config, logger: Logger): KeyRing {
  const { current, previous } = keyEncryptionKeys(config);
  if (!config.PLATFORM_MASTER_KEY)
    logger.warn(
      { file: `${config.PLATFORM_DEV_DIR}/master.key` },
      'PLATFORM_MASTER_KEY is not set: using a development key-encryption key from a file',
    );
  return new KeyRing(current, previous);
}
