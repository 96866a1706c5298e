import { exportJWK, exportPKCS8, generateKeyPair, importJWK, importPKCS8, type JWK, type CryptoKey } from 'jose';
import type { Db } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import type { KeyRing, Sealed } from '../kernel/crypto/envelope.js';

interface SigningKeyDoc {
  _id: string; // the JWT `kid`
  public_jwk: JWK;
  private_key: Sealed; // PKCS#8, sealed under the key-encryption key
  created_at: Date;
  /** Set when a newer key takes over signing; the key stays in the JWKS until its tokens expire. */
  retired_at: Date | null;
}

interface LoadedKey {
  kid: string;
  publicJwk: JWK;
  publicKey: CryptoKey;
  createdAt: Date;
  retiredAt: Date | null;
}

const reloadThrottleMs = 2000;
const activeRefreshMs = 60_000;

/**
 * RS256 signing keys, generated once, persisted with the private half encrypted at rest, shared by
 * every API replica through MongoDB. Rotation retires the current key: it stops signing but stays in
 * the JWKS for `tokenTtlSeconds`, so tokens it signed keep verifying until they expire.
 */
export class SigningKeys {
  private keys = new Map<string, LoadedKey>();
  private active: { kid: string; privateKey: CryptoKey; createdAt: Date } | null = null;
  private lastReload = 0;

  constructor(
    private readonly db: Db,
    private readonly ring: KeyRing,
    private readonly tokenTtlSeconds: number,
  ) {}

  private get collection() {
    return this.db.collection<SigningKeyDoc>('signing_keys');
  }

  /** Loads the keys, creating the first one on a fresh database. */
  async init(): Promise<void> {
    await this.reload();
    if (!this.active) await this.rotate();
  }

  async rotate(): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    const kid = uuidv7();
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
    const now = new Date();
    await this.collection.insertOne({
      _id: kid,
      public_jwk: publicJwk,
      private_key: this.ring.seal(await exportPKCS8(privateKey), `signing-key:${kid}`),
      created_at: now,
      retired_at: null,
    });
    // Only older keys retire: a replica rotating at the same moment must not retire this new key.
    await this.collection.updateMany({ _id: { $ne: kid }, retired_at: null, created_at: { $lt: now } }, { $set: { retired_at: now } });
    await this.reload();
    return kid;
  }

  /** Rotates when the signing key is older than `maxAgeDays` (0 turns automatic rotation off). */
  async rotateIfOlderThan(maxAgeDays: number): Promise<boolean> {
    await this.reload(); // another replica may have rotated already
    if (maxAgeDays <= 0 || !this.active) return false;
    if (Date.now() - this.active.createdAt.getTime() < maxAgeDays * 86_400_000) return false;
    await this.rotate();
    return true;
  }

  /** The key to sign with; re-read now and then, so every replica follows a rotation made elsewhere. */
  async signingKey(): Promise<{ kid: string; privateKey: CryptoKey }> {
    if (!this.active) await this.init();
    else if (Date.now() - this.lastReload > activeRefreshMs) await this.reload();
    return this.active!;
  }

  /** The verification key for a `kid`; unknown kids trigger a throttled reload (another replica may have rotated). */
  async verificationKey(kid: string): Promise<CryptoKey | null> {
    if (!this.keys.has(kid) && Date.now() - this.lastReload > reloadThrottleMs) await this.reload();
    const key = this.keys.get(kid);
    return key && this.isPublished(key) ? key.publicKey : null;
  }

  jwks(): { keys: JWK[] } {
    return { keys: [...this.keys.values()].filter((k) => this.isPublished(k)).map((k) => k.publicJwk) };
  }

  private isPublished(key: LoadedKey): boolean {
    return key.retiredAt === null || Date.now() < key.retiredAt.getTime() + this.tokenTtlSeconds * 1000;
  }

  private async reload(): Promise<void> {
    this.lastReload = Date.now();
    const docs = await this.collection.find({}).sort({ created_at: -1 }).limit(50).toArray();
    const keys = new Map<string, LoadedKey>();
    for (const doc of docs) {
      const publicKey = (await importJWK(doc.public_jwk, 'RS256')) as CryptoKey;
      keys.set(doc._id, { kid: doc._id, publicJwk: doc.public_jwk, publicKey, createdAt: doc.created_at, retiredAt: doc.retired_at });
    }
    this.keys = keys;
    const current = docs.find((d) => d.retired_at === null);
    if (current && this.active?.kid !== current._id) {
      const pem = this.ring.open(current.private_key, `signing-key:${current._id}`).toString();
      this.active = { kid: current._id, privateKey: await importPKCS8(pem, 'RS256'), createdAt: current.created_at };
    }
  }
}
