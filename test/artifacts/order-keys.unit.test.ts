// Append keys come from the clock (store/artifacts.ts appendKey): no read or write of the container's
// last key, yet every append sorts after the ones before it, and the keys stay fractional-index keys
// that moves can put others between.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateKeyBetween } from 'fractional-indexing';
import { appendKey, clockKey } from '../../src/store/artifacts.js';

const now = Date.UTC(2026, 10, 24, 9, 30);

describe('append keys', () => {
  it('sort after every key counted up from the first one', () => {
    let legacy: string | null = null;
    for (let i = 0; i < 5000; i++) legacy = generateKeyBetween(legacy, null);
    for (const key of ['a0', 'az', 'b00', legacy!, 'gzzzzzzz', 'gzzzzzzzzzzV']) assert.ok(appendKey(key, now) > key, key);
    assert.ok(clockKey(0) > 'gzzzzzzzzzzzzzz');
    assert.equal(clockKey(now).length, 9);
  });

  it('follow the clock, whatever stale last key they are given', () => {
    const keys = [];
    for (let t = now; t < now + 3000; t += 3) keys.push(appendKey(null, t), appendKey('a5', t + 1));
    assert.deepEqual([...keys].sort(), keys);
  });

  it('in one millisecond, or behind another clock, follow the last key they are given', () => {
    let last = appendKey(null, now);
    for (let i = 0; i < 200; i++) {
      const next = appendKey(last, now); // a batch in one millisecond
      assert.ok(next > last, `${next} after ${last}`);
      last = next;
    }
    const ahead = appendKey(null, now + 60_000); // another node's clock, a minute ahead
    assert.ok(appendKey(ahead, now) > ahead);
  });

  it('are fractional-index keys: a move can take a key between two of them', () => {
    const a = appendKey(null, now);
    const b = appendKey(a, now);
    const c = appendKey(null, now + 2); // b took the integer after a's, which is the clock's at now + 1
    for (const [lo, hi] of [
      [a, b],
      [b, c],
      [null, a],
      [c, null],
    ] as const) {
      const mid = generateKeyBetween(lo, hi);
      assert.ok((lo === null || mid > lo) && (hi === null || mid < hi), `${lo} < ${mid} < ${hi}`);
    }
  });
});
