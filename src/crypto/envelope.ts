import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM encryption under a key-encryption key (KEK) from the environment. Each sealed value
 * names the KEK that sealed it (`kid`), so the KEK can be rotated: the new key seals, the previous keys
 * still open what they sealed.
 */
export interface Sealed {
  kid: string;
  iv: string;
  tag: string;
  ct: string;
}

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
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKid)!, iv);
    cipher.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { kid: this.currentKid, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ct: ct.toString('base64') };
  }

  open(sealed: Sealed, aad: string): Buffer {
    const key = this.keys.get(sealed.kid);
    if (!key) throw new Error(`no key-encryption key with id ${sealed.kid} is configured`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ct, 'base64')), decipher.final()]);
  }
}
