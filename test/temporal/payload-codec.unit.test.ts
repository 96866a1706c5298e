// The payload codec alone: round trip, tampering, unknown keys, rotation, pass-through of clear payloads.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { encodeErrorToFailure } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow/data-converter-helpers.js';
import { loadConfig } from '../../src/kernel/config/env.js';
import { platformDataConverter } from '../../src/temporal/payload-codec.js';
import { keyEncryptionKeys } from '../../src/kernel/crypto/key-encryption-keys.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EncryptionCodec, PayloadCodecError, encryptedEncoding, keyIdKey } from '../../src/temporal/codec/encryption-codec.js';

const marker = 'codec-unit-marker-7f3a';
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');
const clear = (value: unknown): Payload => defaultPayloadConverter.toPayload(value)!;

describe('payload codec (AES-256-GCM under keys derived from the KEK)', () => {
  const kekA = randomBytes(32);
  const kekB = randomBytes(32);

  it('round-trips a payload, metadata included, and leaves no plaintext in the sealed one', async () => {
    const codec = new EncryptionCodec({ current: kekA, previous: [] });
    const original = clear({ content: marker, n: 1 });
    const [sealed] = await codec.encode([original]);
    assert.equal(text(sealed!.metadata!.encoding), encryptedEncoding);
    assert.equal(text(sealed!.metadata![keyIdKey]), codec.currentKeyId);
    assert.ok(!Buffer.from(sealed!.data!).includes(marker), 'the marker is not in the ciphertext');
    assert.ok(!Buffer.from(sealed!.data!).includes('json/plain'), 'the inner encoding is sealed too');
    const [opened] = await codec.decode([sealed!]);
    assert.deepEqual(defaultPayloadConverter.fromPayload(opened!), { content: marker, n: 1 });
    assert.equal(text(opened!.metadata!.encoding), 'json/plain');
  });

  it('seals the same payload differently each time (a fresh IV)', async () => {
    const codec = new EncryptionCodec({ current: kekA, previous: [] });
    const [one, two] = await codec.encode([clear(marker), clear(marker)]);
    assert.notDeepEqual(Buffer.from(one!.data!), Buffer.from(two!.data!));
  });

  it('refuses a tampered ciphertext, tag or key id', async () => {
    const codec = new EncryptionCodec({ current: kekA, previous: [kekB] });
    const [sealed] = await codec.encode([clear(marker)]);
    for (const at of [0, 12, sealed!.data!.length - 1]) {
      const data = Buffer.from(sealed!.data!);
      data[at] = data[at]! ^ 1;
      await assert.rejects(codec.decode([{ ...sealed!, data }]), (err: Error) => {
        assert.ok(err instanceof PayloadCodecError && err.reason === 'tampered', err.message);
        return true;
      });
    }
    // Relabelled as sealed under the other configured key: the key id is authenticated data.
    const other = new EncryptionCodec({ current: kekB, previous: [] }).currentKeyId;
    const relabelled = { ...sealed!, metadata: { ...sealed!.metadata, [keyIdKey]: new TextEncoder().encode(other) } };
    await assert.rejects(codec.decode([relabelled]), /failed authentication/);
    await assert.rejects(codec.decode([{ ...sealed!, data: Buffer.from(sealed!.data!).subarray(0, 20) }]), /truncated/);
    // A key id that is not UTF-8: malformed (a 422 at the codec server), not a TypeError (a 500).
    const garbled = { ...sealed!, metadata: { ...sealed!.metadata, [keyIdKey]: Uint8Array.from([0xff, 0xfe, 0x80]) } };
    await assert.rejects(codec.decode([garbled]), (err: Error) => err instanceof PayloadCodecError && err.reason === 'malformed');
  });

  it('names an unknown key id clearly, and opens it once the previous key is configured (rotation)', async () => {
    const before = new EncryptionCodec({ current: kekA, previous: [] });
    const [sealed] = await before.encode([clear(marker)]);
    const rotatedWithout = new EncryptionCodec({ current: kekB, previous: [] });
    await assert.rejects(rotatedWithout.decode([sealed!]), (err: Error) => {
      assert.ok(err instanceof PayloadCodecError && err.reason === 'unknown-key');
      assert.match(err.message, new RegExp(`key ${before.currentKeyId}, which is not configured`));
      assert.match(err.message, /PLATFORM_PREVIOUS_MASTER_KEYS/);
      return true;
    });
    const rotated = new EncryptionCodec({ current: kekB, previous: [kekA] });
    assert.notEqual(rotated.currentKeyId, before.currentKeyId);
    const [opened] = await rotated.decode([sealed!]);
    assert.equal(defaultPayloadConverter.fromPayload(opened!), marker);
    const [resealed] = await rotated.encode([opened!]);
    assert.equal(text(resealed!.metadata![keyIdKey]), rotated.currentKeyId, 'new payloads use the new key');
  });

  it('passes clear payloads (histories from before the codec) through unchanged', async () => {
    const codec = new EncryptionCodec({ current: kekA, previous: [] });
    const plain = clear({ content: marker });
    const [out] = await codec.decode([plain]);
    assert.deepEqual(out, plain);
    const binary: Payload = { metadata: { encoding: new Uint8Array([0xff, 0xfe]) }, data: new Uint8Array([1]) };
    assert.deepEqual((await codec.decode([binary]))[0], binary);
  });

  it('derives the key, never uses the KEK itself, and its id reveals nothing of the KEK', () => {
    const codec = new EncryptionCodec({ current: kekA, previous: [] });
    assert.match(codec.currentKeyId, /^tpc1-[0-9a-f]{16}$/);
    assert.ok(!kekA.toString('hex').includes(codec.currentKeyId.slice(5)));
    assert.throws(() => new EncryptionCodec({ current: randomBytes(16), previous: [] }), /32 bytes/);
  });

  it("the platform's data converter seals payloads and failures' messages and stacks", async () => {
    const config = loadConfig({ PLATFORM_MASTER_KEY: kekA.toString('base64') });
    const converter = loadDataConverter(platformDataConverter(config));
    const failure = await encodeErrorToFailure(converter, new Error(`failed on ${marker}`));
    assert.equal(failure.message, 'Encoded failure');
    assert.equal(failure.stackTrace, '');
    assert.equal(text(failure.encodedAttributes!.metadata!.encoding), encryptedEncoding);
    assert.ok(!JSON.stringify(failure).includes(marker));
  });

  it('takes the KEKs from the environment, or in development the key file the key ring uses', () => {
    const previous = [randomBytes(32), randomBytes(32)];
    const fromEnv = keyEncryptionKeys(
      loadConfig({
        PLATFORM_MASTER_KEY: kekA.toString('base64'),
        PLATFORM_PREVIOUS_MASTER_KEYS: previous.map((k) => k.toString('base64')).join(' , '),
      }),
    );
    assert.deepEqual(fromEnv, { current: kekA, previous });
    const dir = mkdtempSync(join(tmpdir(), 'codec-keys-'));
    try {
      const dev = keyEncryptionKeys(loadConfig({ PLATFORM_DEV_DIR: dir }));
      assert.deepEqual(dev.current, Buffer.from(readFileSync(join(dir, 'master.key'), 'utf8'), 'base64'));
      assert.deepEqual(keyEncryptionKeys(loadConfig({ PLATFORM_DEV_DIR: dir })).current, dev.current, 'written once');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
