import { BSON, Binary } from 'mongodb';

/**
 * Documents are kept as JSONB in MongoDB's relaxed Extended JSON: numbers stay numbers (so they
 * compare and sort as numbers), an ObjectId is `{"$oid": "<hex>"}`, and a Date `{"$date": "<ISO 8601>"}`
 * always with milliseconds (the bson library leaves out a zero fraction, and `…01Z` would then sort
 * after `…01.500Z`): ISO strings of one fixed format sort in time order under the C collation the
 * embedded cluster uses. Filter values are encoded the same way, so equality and ranges compare
 * like with like.
 */
export function toJson(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) return BSON.EJSON.serialize(value, { relaxed: true });
    if (typeof value === 'bigint') return Number(value);
    return value;
  }
  if (value instanceof Date) {
    const t = value.getTime();
    return t >= -62_167_219_200_000 && t <= 253_402_300_799_999 ? { $date: value.toISOString() } : { $date: { $numberLong: String(t) } };
  }
  if (Array.isArray(value)) return value.map((v) => (v === undefined || typeof v === 'function' ? null : toJson(v)));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return BSON.EJSON.serialize(value, { relaxed: true });
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined && typeof v !== 'function') out[k] = toJson(v);
  return out;
}

export function toJsonText(value: unknown): string {
  return JSON.stringify(toJson(value));
}

/**
 * A stored document back to what the driver would give: `EJSON.deserialize` on the parts that need
 * it. The driver's own call stringifies the whole document and parses it again with a reviver on
 * every value; only objects with a `$` key (a date, an id, a binary vector) are Extended JSON, and
 * the reviver works bottom-up, so each such object is deserialized alone and the rest is copied: the
 * same result at a fraction of the cost of a whole document (issue #31: every read decodes).
 */
export function fromJson<T>(value: unknown): T {
  return revive(value) as T;
}

const deserialize = (value: object) => BSON.EJSON.deserialize(value as BSON.Document, { relaxed: true });

/** The two wrappers nearly every document holds, a date and a binary (a vector), read directly; the rest through EJSON. */
function wrapped(key: string, value: Record<string, unknown>): unknown {
  const inner = value[key];
  if (key === '$date' && typeof inner === 'string') return new Date(Date.parse(inner));
  if (key === '$binary' && inner !== null && typeof inner === 'object') {
    const { base64, subType } = inner as Record<string, unknown>;
    if (typeof base64 === 'string' && typeof subType === 'string' && Object.keys(inner).length === 2) {
      const type = subType ? parseInt(subType, 16) : 0;
      if (type !== 4) return new Binary(Buffer.from(base64, 'base64'), type);
    }
  }
  return deserialize(value);
}

function revive(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(revive);
  const keys = Object.keys(value);
  for (const k of keys) {
    if (k.includes('\x00')) throw new BSON.BSONError(`BSON Document field names cannot contain null bytes, found: ${JSON.stringify(k)}`);
    if (k.startsWith('$')) return keys.length === 1 ? wrapped(k, value as Record<string, unknown>) : deserialize(value);
  }
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = revive((value as Record<string, unknown>)[k]);
    // As JSON.parse does: "__proto__" is an own key, never the prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}
