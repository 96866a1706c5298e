import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { KeyEncryptionKeys } from '../../kernel/crypto/key-encryption-keys.js';

/** The metadata that marks an encrypted payload, as Temporal's encryption samples write it. */
export const encryptedEncoding = 'binary/encrypted';
export const keyIdKey = 'encryption-key-id';
export const cipherKey = 'encryption-cipher';
const cipherName = 'AES256GCM';
const ivBytes = 12;
const tagBytes = 16;
/** HKDF info: a codec key is only ever a codec key, whatever else the KEK derives or seals. */
const hkdfInfo = 'platform/temporal-payload-codec/v1';

const utf8 = new TextEncoder();
const text = new TextDecoder('utf-8', { fatal: true });

/** A payload the codec cannot open: an unknown key id, a tampered or truncated ciphertext, a malformed inner payload. */
export class PayloadCodecError extends Error {
  constructor(
    message: string,
    readonly reason: 'unknown-key' | 'tampered' | 'malformed',
  ) {
    super(message);
    this.name = 'PayloadCodecError';
  }
}

interface CodecKey {
  id: string;
  key: Buffer;
}

/** The codec key derived from one KEK (HKDF-SHA256), and its id: a hash of the derived key, so the id reveals nothing of the KEK. */
export function deriveCodecKey(kek: Buffer): CodecKey {
  if (kek.length !== 32) throw new Error('a key-encryption key must be 32 bytes');
  const key = Buffer.from(hkdfSync('sha256', kek, Buffer.alloc(0), hkdfInfo, 32));
  return { id: `tpc1-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`, key };
}

/**
 * The inner payload, before sealing: its metadata as JSON (values base64) and its data, one after the
 * other behind the metadata's length, so the whole payload (encoding included) is sealed.
 */
function serialize(payload: Payload): Buffer {
  const metadata = Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]));
  const head = Buffer.from(JSON.stringify(metadata), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(head.length);
  return Buffer.concat([length, head, Buffer.from(payload.data ?? [])]);
}

function deserialize(plain: Buffer): Payload {
  const fail = () => new PayloadCodecError('the decrypted payload is malformed', 'malformed');
  if (plain.length < 4) throw fail();
  const length = plain.readUInt32BE(0);
  if (4 + length > plain.length) throw fail();
  let metadata: Record<string, Uint8Array>;
  try {
    const parsed = JSON.parse(text.decode(plain.subarray(4, 4 + length))) as Record<string, string>;
    metadata = Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))]));
  } catch {
    throw fail();
  }
  return { metadata, data: new Uint8Array(plain.subarray(4 + length)) };
}

const metaText = (payload: Payload, key: string): string | undefined => {
  const value = payload.metadata?.[key];
  return value ? text.decode(value) : undefined;
};

/**
 * AES-256-GCM over whole payloads. Seals with the key derived from the current KEK; opens with the
 * key its `encryption-key-id` names, among those derived from every configured KEK, so payloads
 * written before a rotation stay readable while the previous key is configured. A payload that is not
 * `binary/encrypted` (histories from before the codec) passes through as it is. The key id is bound
 * to the ciphertext as additional data, so relabelling a payload fails as tampering does.
 */
export class EncryptionCodec implements PayloadCodec {
  private readonly keys = new Map<string, Buffer>();
  readonly currentKeyId: string;

  constructor(kek: KeyEncryptionKeys) {
    const current = deriveCodecKey(kek.current);
    this.currentKeyId = current.id;
    for (const { id, key } of [current, ...kek.previous.map(deriveCodecKey)]) if (!this.keys.has(id)) this.keys.set(id, key);
  }

  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.seal(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.open(p));
  }

  seal(payload: Payload): Payload {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId)!, iv);
    cipher.setAAD(Buffer.from(this.currentKeyId));
    const ct = Buffer.concat([cipher.update(serialize(payload)), cipher.final()]);
    return {
      metadata: {
        encoding: utf8.encode(encryptedEncoding),
        [keyIdKey]: utf8.encode(this.currentKeyId),
        [cipherKey]: utf8.encode(cipherName),
      },
      data: new Uint8Array(Buffer.concat([iv, ct, cipher.getAuthTag()])),
    };
  }

  open(payload: Payload): Payload {
    let encoding: string | undefined;
    try {
      encoding = metaText(payload, 'encoding');
    } catch {
      return payload; // not text: not ours to open
    }
    if (encoding !== encryptedEncoding) return payload;
    let keyId: string | undefined;
    try {
      keyId = metaText(payload, keyIdKey);
    } catch {
      throw new PayloadCodecError(`an encrypted payload's ${keyIdKey} is not text`, 'malformed');
    }
    if (!keyId) throw new PayloadCodecError(`an encrypted payload has no ${keyIdKey}`, 'malformed');
    const key = this.keys.get(keyId);
    if (!key) {
      throw new PayloadCodecError(
        `payload encrypted with key ${keyId}, which is not configured (known: ${this.keyIds.join(', ')}); ` +
          'set the master key it was derived from in PLATFORM_PREVIOUS_MASTER_KEYS',
        'unknown-key',
      );
    }
    const data = Buffer.from(payload.data ?? []);
    if (data.length < ivBytes + tagBytes) throw new PayloadCodecError(`payload encrypted with key ${keyId} is truncated`, 'tampered');
    let plain: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, ivBytes));
      decipher.setAAD(Buffer.from(keyId));
      decipher.setAuthTag(data.subarray(data.length - tagBytes));
      plain = Buffer.concat([decipher.update(data.subarray(ivBytes, data.length - tagBytes)), decipher.final()]);
    } catch {
      throw new PayloadCodecError(`payload encrypted with key ${keyId} failed authentication (altered, or not ours)`, 'tampered');
    }
    return deserialize(plain);
  }
}
