// The publish gate's caps before the publish, without engines: a client that does not know the key
// can neither make the gate scan a flood of chunk streams nor feed it messages for ever. The checks
// count work (chunks parsed, bytes forwarded, the verdict), never time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PublishGate } from '../../src/media/rtmp-publish-gate.js';

const handshake = Buffer.concat([Buffer.from([3]), Buffer.alloc(1536 * 2)]);

/** A zero-length type-5 control message (window size) opening chunk stream `csid` (3-byte form). */
const emptyControl = (csid: number) => {
  const b = Buffer.alloc(3 + 11);
  b[0] = 1; // fmt 0, 3-byte csid
  b.writeUInt16LE(csid - 64, 1);
  b[3 + 6] = 5;
  return b;
};

/** A control message on chunk stream 2 carrying `size` bytes (type 5: no meaning the gate acts on). */
const control = (size: number) => {
  const h = Buffer.alloc(12);
  h[0] = 2;
  h.writeUIntBE(size, 4, 3);
  h[7] = 5;
  return Buffer.concat([h, Buffer.alloc(size)]);
};

describe('the publish gate before the publish', () => {
  it('refuses a flood of chunk streams after a handful, forwarding only those', () => {
    const gate = new PublishGate('k'.repeat(20));
    gate.push(handshake);
    const flood = Buffer.concat(Array.from({ length: 65_000 }, (_, i) => emptyControl(64 + i)));
    let forwarded = 0;
    let verdict = gate.push(Buffer.alloc(0)).verdict;
    for (let at = 0; at < flood.length && verdict.state === 'pending'; at += 65536) {
      const r = gate.push(flood.subarray(at, at + 65536));
      forwarded += r.forward.length;
      verdict = r.verdict;
    }
    assert.deepEqual(verdict, { state: 'refused', reason: 'too many chunk streams before the publish' });
    assert.ok(forwarded <= 8 * 14, `forwarded ${forwarded} bytes of the flood`);
  });

  it('refuses more messages than an opening needs on one chunk stream', () => {
    const gate = new PublishGate('k1');
    gate.push(handshake);
    const r = gate.push(Buffer.concat(Array.from({ length: 40 }, () => control(0))));
    assert.deepEqual(r.verdict, { state: 'refused', reason: 'too many messages before the publish' });
    assert.equal(r.forward.length, 0);
  });

  it('refuses more bytes than an opening needs, in messages each below the message cap', () => {
    const gate = new PublishGate('k1');
    gate.push(handshake);
    // 128-byte chunks: set a large chunk size first so each message is one chunk.
    const setChunk = Buffer.alloc(16);
    setChunk[0] = 2;
    setChunk.writeUIntBE(4, 4, 3);
    setChunk[7] = 1;
    setChunk.writeUInt32BE(1 << 20, 12);
    let r = gate.push(setChunk);
    assert.equal(r.verdict.state, 'pending');
    r = gate.push(Buffer.concat([control(30_000), control(30_000)]));
    assert.equal(r.verdict.state, 'pending');
    r = gate.push(control(30_000));
    assert.deepEqual(r.verdict, { state: 'refused', reason: 'too much data before the publish' });
  });

  it('refuses a type-2 chunk in the middle of a message (ffmpeg would frame what follows differently)', () => {
    const gate = new PublishGate('k'.repeat(20));
    gate.push(handshake);
    const body = Buffer.alloc(300);
    body[0] = 2;
    body.writeUInt16BE(3, 1);
    body.write('foo', 3);
    const first = Buffer.concat([Buffer.from([0x03, 0, 0, 0, 0, 1, 44, 20, 0, 0, 0, 0]), body.subarray(0, 128)]);
    const second = Buffer.concat([Buffer.from([0x83, 0xff, 0xff, 0xff, 0, 0, 0, 0]), body.subarray(128, 256)]);
    const third = Buffer.concat([Buffer.from([0xc3, 0, 0, 0, 0]), body.subarray(256)]);
    const r = gate.push(Buffer.concat([first, second, third]));
    assert.deepEqual(r.verdict, { state: 'refused', reason: 'a new message header in the middle of a message' });
    assert.equal(r.forward.length, 0);
  });
});
