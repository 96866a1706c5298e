// The embedded store's decoder gives exactly what the driver's EJSON.deserialize gives, for every
// shape a document can take: fuzzed documents of dates, ids, binaries (vectors), longs, non-finite
// numbers, user keys that start with `$`, `__proto__` keys, nesting and arrays.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BSON, Binary, Long, ObjectId, UUID } from 'mongodb';
import { fromJson, toJson } from '../../src/store/postgres/json.js';

function rand(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

function value(r: () => number, depth: number): unknown {
  const pick = Math.floor(r() * (depth > 3 ? 9 : 13));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return Math.floor(r() * 1e6) - 5e5;
    case 2:
      return r() * 1e3;
    case 3:
      return `s${Math.floor(r() * 1e4)}`;
    case 4:
      return r() < 0.5;
    case 5:
      return r() < 0.9 ? new Date(Math.floor(r() * 4e12)) : new Date(-8.64e15 + Math.floor(r() * 1e6)); // the second beyond ISO years
    case 6: {
      const which = r();
      if (which < 0.6) return Binary.fromFloat32Array(Float32Array.from({ length: 1 + Math.floor(r() * 8) }, () => r() - 0.5));
      if (which < 0.8) return new Binary(Buffer.from([Math.floor(r() * 256), 1, 2]), Math.floor(r() * 3));
      return new UUID();
    }
    case 7:
      return new ObjectId(Math.floor(r() * 2 ** 31));
    case 8:
      return [NaN, Infinity, -Infinity, Long.fromNumber(2 ** 40 + Math.floor(r() * 1000))][Math.floor(r() * 4)];
    case 9:
      return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
    case 10:
      return { $user: value(r, depth + 1), plain: value(r, depth + 1) }; // a user key with a dollar: kept as data
    case 11:
      return JSON.parse(`{"__proto__": ${JSON.stringify(toJson(value(r, depth + 1)))}, "x": 1}`);
    default: {
      const doc: Record<string, unknown> = {};
      for (let i = 0; i < 1 + Math.floor(r() * 4); i++) doc[`k${i}`] = value(r, depth + 1);
      return doc;
    }
  }
}

describe('embedded store JSON codec', () => {
  it('decodes every stored shape exactly as EJSON.deserialize does', () => {
    const r = rand(42);
    for (let i = 0; i < 3000; i++) {
      const doc = { _id: `a${i}`, v: value(r, 0), w: value(r, 0) };
      const stored = JSON.parse(JSON.stringify(toJson(doc))); // what PostgreSQL hands back
      const expected = BSON.EJSON.deserialize(structuredClone(stored), { relaxed: true });
      const got = fromJson(stored);
      assert.deepStrictEqual(got, expected, JSON.stringify(stored));
      assert.equal(Object.getPrototypeOf(got), Object.prototype);
    }
  });

  it('keeps a stored "__proto__" key as data, never as the prototype', () => {
    const stored = JSON.parse('{"_id": "x", "context": {"__proto__": {"polluted": true}}}');
    const got = fromJson<{ context: Record<string, unknown> }>(stored);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((got.context as { polluted?: boolean }).polluted, undefined);
    assert.deepEqual(Object.keys(got.context), ['__proto__']);
  });

  it('refuses a field name with a null byte, as the driver does', () => {
    assert.throws(() => fromJson(JSON.parse('{"a": {"b\\u0000": 1}}')), /null bytes/);
  });

  it('decodes a stored vector back to the same floats', () => {
    const vector = Float32Array.from({ length: 384 }, (_, i) => Math.sin(i));
    const stored = JSON.parse(JSON.stringify(toJson({ search: { vector: Binary.fromFloat32Array(vector) } })));
    const got = fromJson<{ search: { vector: Binary } }>(stored);
    assert.deepEqual(got.search.vector.toFloat32Array(), vector);
  });
});
