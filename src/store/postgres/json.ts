import { BSON } from 'mongodb';

/**
 * Documents are kept as JSONB in MongoDB's relaxed Extended JSON: numbers stay numbers (so they
 * compare and sort as numbers), a Date is `{"$date": "<ISO 8601>"}` (ISO strings of one format sort in
 * time order under the C collation the embedded cluster uses), an ObjectId `{"$oid": "<hex>"}`.
 * Filter values are encoded the same way, so equality and ranges compare like with like.
 */
export function toJson(value: unknown): unknown {
  return BSON.EJSON.serialize(value, { relaxed: true });
}

export function toJsonText(value: unknown): string {
  return JSON.stringify(toJson(value));
}

export function fromJson<T>(value: unknown): T {
  return BSON.EJSON.deserialize(value as BSON.Document, { relaxed: true }) as T;
}
