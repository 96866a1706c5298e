import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import type { Config } from '../kernel/config/env.js';
import { EncryptionCodec } from './codec/encryption-codec.js';
import { keyEncryptionKeys } from '../kernel/crypto/key-encryption-keys.js';

/** The failure converter that moves messages and stack traces into the (sealed) encoded attributes. */
export const failureConverterPath = fileURLToPath(new URL('./codec/failure-converter.ts', import.meta.url));

const codecs = new WeakMap<Config, EncryptionCodec>();

/** The payload codec of a configuration: AES-256-GCM under keys derived from the platform's KEKs. One per configuration. */
export function platformCodec(config: Config): EncryptionCodec {
  let codec = codecs.get(config);
  if (!codec) {
    codec = new EncryptionCodec(keyEncryptionKeys(config));
    codecs.set(config, codec);
  }
  return codec;
}

/**
 * The data converter every client and worker of the platform uses: payloads (inputs, results, signals,
 * updates, queries, memo, heartbeat details, failures' details) sealed by the codec, so that Temporal's
 * store holds ciphertext; failures' messages and stacks moved into a sealed payload too. Search
 * attributes are indexed by the server and never pass a codec: the platform writes only ids, kinds and
 * states there (src/temporal/search-attributes.ts), never content.
 */
export function platformDataConverter(config: Config): DataConverter {
  return { payloadCodecs: [platformCodec(config)], failureConverterPath };
}
