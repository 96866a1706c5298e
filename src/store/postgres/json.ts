import { BSON } from 'mongodb';

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

export function fromJson<T>(value: unknown): T {
  return BSON.EJSON.deserialize(value as BSON.Document, { relaxed: true }) as T;
}
