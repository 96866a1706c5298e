// The pieces of test/artifacts/fuzz.test.ts: a seeded PRNG, a JSON writer that can say what JSON.stringify
// cannot (1e309, 100,000 levels, an own `__proto__` key), and the mutations applied to valid bodies.

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: <T>(items: readonly T[]): T => items[int(items.length)]!, chance: (p: number) => next() < p };
}
export type Rng = ReturnType<typeof prng>;

/** JSON text written as it is. */
export class Raw {
  constructor(readonly text: string) {}
}
export type Value = null | boolean | number | string | Raw | Value[] | { [key: string]: Value };
export type Body = { [key: string]: Value };

/** JSON text for a value; keys are the object's own keys, `__proto__` included. */
export function write(value: Value): string {
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return `[${value.map(write).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .map((k) => `${JSON.stringify(k)}:${write(value[k]!)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** Sets `key` as an own property, even `__proto__` (plain assignment would set the prototype). */
export function setKey(target: Body, key: string, value: Value): void {
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
}

const nestedText = (depth: number, open: string, close: string) => new Raw(`${open.repeat(depth)}1${close.repeat(depth)}`);

/** What a case sends: a body as JSON text or raw bytes, its content type, and an optional query string. */
export interface Sendable {
  text?: string;
  bytes?: Buffer;
  contentType: string | null;
  query: string;
}

type FieldMutation = (body: Body, rng: Rng, free: string | null) => string;

const strings = (body: Body) => Object.keys(body).filter((k) => typeof body[k] === 'string');
/** A free-form object of the body when it has one (context, metadata, arguments), else the body itself. */
const freeForm = (body: Body, free: string | null): Body => {
  const inner = free ? body[free] : null;
  return inner && typeof inner === 'object' && !Array.isArray(inner) && !(inner instanceof Raw) ? inner : body;
};
const anyKey = (body: Body, rng: Rng) => rng.pick([...Object.keys(body), 'extra']);

/** Mutations of a valid body's fields: each returns its name, for the failure report. */
export const fieldMutations: Record<string, FieldMutation> = {
  wrongType(body, rng) {
    const key = anyKey(body, rng);
    body[key] = rng.pick<Value>([123, -1, 1.5, true, false, null, [], {}, 'text', [1, 'a'], { nested: { x: 1 } }]);
    return `wrongType(${key})`;
  },
  hugeString(body, rng) {
    const key = rng.pick([...strings(body), 'title']);
    body[key] = 'x'.repeat(rng.pick([5_000, 60_000, 300_000, rng.chance(0.05) ? 1_200_000 : 20_000]));
    return `hugeString(${key})`;
  },
  deepNesting(body, rng, free) {
    const key = free && rng.chance(0.7) ? free : anyKey(body, rng);
    const depth = rng.pick([20, 31, 32, 33, 63, 64, 65, 200, 10_000, 100_000]);
    body[key] = rng.chance(0.5) ? nestedText(depth, '{"a":', '}') : nestedText(depth, '[', ']');
    return `deepNesting(${key}, ${depth})`;
  },
  dollarKey(body, rng, free) {
    const key = rng.pick(['$where', '$set', '$gt', '$ne', '$']);
    setKey(freeForm(body, free), key, rng.pick<Value>([1, 'sleep(100)', { $ne: null }]));
    return `dollarKey(${key})`;
  },
  dottedKey(body, rng, free) {
    setKey(freeForm(body, free), rng.pick(['a.b', '.', 'x.', '.y']), 1);
    return 'dottedKey';
  },
  nulString(body, rng) {
    const key = rng.pick([...strings(body), 'title']);
    body[key] = `${typeof body[key] === 'string' ? body[key] : 'x'}\u0000tail`;
    return `nulString(${key})`;
  },
  nulKey(body, rng, free) {
    setKey(freeForm(body, free), 'a\u0000b', 1);
    return 'nulKey';
  },
  loneSurrogate(body, rng, free) {
    if (rng.chance(0.5)) {
      setKey(freeForm(body, free), rng.pick(['\ud800', 'k\udc00']), 1);
      return 'loneSurrogate(key)';
    }
    const key = rng.pick([...strings(body), 'title']);
    body[key] = rng.pick(['\ud800', 'a\udfffb', '\udc00\ud800']);
    return `loneSurrogate(${key})`;
  },
  nestedArrays(body, rng, free) {
    const target = freeForm(body, free);
    setKey(target, 'm', rng.pick<Value>([[[1]], [1, [2, [3]]], [{ a: [[1]] }]]));
    return 'nestedArrays';
  },
  prototypeKey(body, rng, free) {
    const key = rng.pick(['__proto__', 'constructor', 'prototype']);
    setKey(rng.chance(0.5) ? body : freeForm(body, free), key, rng.pick<Value>([{ polluted: true }, { toString: 1 }, 'x']));
    return `prototypeKey(${key})`;
  },
  extraField(body, rng) {
    const key = rng.pick(['extra', 'id', 'owner_id', '_id', 'revision', 'provenance', 'admin']);
    setKey(body, key, rng.pick<Value>([1, 'x', { a: 1 }, true]));
    return `extraField(${key})`;
  },
  weirdNumber(body, rng) {
    const key = anyKey(body, rng);
    body[key] = rng.pick<Value>([
      new Raw('1e309'),
      new Raw('-1e309'),
      new Raw('1e-400'),
      -1,
      -0,
      1.5,
      2 ** 53 + 1,
      Number.MAX_SAFE_INTEGER,
      new Raw('123456789012345678901234567890'),
    ]);
    return `weirdNumber(${key})`;
  },
  dropField(body, rng) {
    const key = anyKey(body, rng);
    delete body[key];
    return `dropField(${key})`;
  },
  mangleId(body, rng) {
    const key = rng.pick(['collection_id', 'after_id', 'id', 'workspace_id']);
    body[key] = rng.pick<Value>([
      -1,
      3.14,
      0,
      'not-a-uuid',
      '00000000-0000-0000-0000-000000000000',
      '0190b5a0-0000-7000-8000-000000000000',
      '',
      ['x'],
      { $ne: null },
    ]);
    return `mangleId(${key})`;
  },
};

/** Mutations of what is sent: bytes, content type, a truncated text, a query string. */
export function mutateSendable(send: Sendable, rng: Rng): string {
  const text = send.text ?? '';
  switch (rng.int(6)) {
    case 0: {
      const at = rng.int(text.length + 1);
      send.bytes = Buffer.concat([
        Buffer.from(text.slice(0, at)),
        Buffer.from(rng.pick([[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]])),
        Buffer.from(text.slice(at)),
      ]);
      delete send.text;
      return 'invalidUtf8';
    }
    case 1:
      send.contentType = rng.pick([
        null,
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        'application/xml',
        'APPLICATION/JSON',
        'application/merge-patch+json',
      ]);
      return `contentType(${send.contentType})`;
    case 2:
      send.text = text.slice(0, rng.int(Math.max(1, text.length)));
      return 'truncated';
    case 3:
      send.text = rng.pick(['', 'null', '[]', '"text"', '1', 'true', '{', '}', '[{}]', '{"a":1}{"b":2}', '\ufeff{}']);
      return `notAnObject(${JSON.stringify(send.text)})`;
    case 4:
      send.query = rng.pick([
        '?x=1',
        '?collection_id[$ne]=x',
        '?limit=1&limit=2',
        '?colection_id=x',
        '?__proto__[admin]=1',
        '?a=%00',
        '?a=%E0%A4%A',
      ]);
      return `query(${send.query})`;
    default:
      send.text = `\ufeff${text}`;
      return 'byteOrderMark';
  }
}
