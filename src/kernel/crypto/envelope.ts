import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** AES-256-GCM ciphertext, naming the key that sealed it (`kid`). */
export interface Sealed {
  kid: string;
  iv: string;
  tag: string;
  ct: string;
}

function encrypt(key: Buffer, kid: string, plaintext: string | Buffer, aad: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { kid, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ct: ct.toString('base64') };
}

function decrypt(key: Buffer, sealed: Sealed, aad: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.ct, 'base64')), decipher.final()]);
}

/** A value sealed under its own data key, which is itself sealed under the key-encryption key. */
export interface Envelope {
  dek: Sealed;
  value: Sealed;
}

/**
 * The key-encryption keys (KEK) from the environment. The current key seals; previous keys still
 * open what they sealed, so the KEK can be rotated and envelopes re-wrapped at leisure.
 */
export class KeyRing {
  private readonly keys = new Map<string, Buffer>();
  readonly currentKid: string;

  constructor(current: Buffer, previous: Buffer[] = []) {
    if (current.length !== 32) throw new Error('a key-encryption key must be 32 bytes');
    this.currentKid = KeyRing.kidOf(current);
    for (const key of [current, ...previous]) this.keys.set(KeyRing.kidOf(key), key);
  }

  static kidOf(key: Buffer): string {
    return createHash('sha256').update(key).digest('hex').slice(0, 12);
  }

  seal(plaintext: string | Buffer, aad: string): Sealed {
    return encrypt(this.keys.get(this.currentKid)!, this.currentKid, plaintext, aad);
  }

  open(sealed: Sealed, aad: string): Buffer {
    const key = this.keys.get(sealed.kid);
    if (!key) throw new Error(`no key-encryption key with id ${sealed.kid} is configured`);
    return decrypt(key, sealed, aad);
  }

  /** Envelope encryption: a fresh AES-256 data key per value. */
  sealEnvelope(plaintext: string, aad: string): Envelope {
    const dek = randomBytes(32);
    return { dek: this.seal(dek, `dek:${aad}`), value: encrypt(dek, 'dek', plaintext, aad) };
  }

  openEnvelope(envelope: Envelope, aad: string): string {
    const dek = this.open(envelope.dek, `dek:${aad}`);
    return decrypt(dek, envelope.value, aad).toString('utf8');
  }
}
