import { BSON, MongoServerError } from 'mongodb';
import { isPlainObject, UnsupportedQueryError } from './filter.js';

type Doc = Record<string, unknown>;

function parentOf(doc: Doc, path: string, create: boolean): { parent: Doc; key: string } | null {
  const segments = path.split('.');
  const key = segments.pop()!;
  let node: Doc = doc;
  for (const segment of segments) {
    let next = node[segment];
    if (next === undefined || next === null) {
      if (!create) return null;
      next = {};
      node[segment] = next;
    }
    if (typeof next !== 'object') throw new UnsupportedQueryError(`an update through the non-object field ${segment} of ${path}`);
    node = next as Doc;
  }
  return { parent: node, key };
}

function getPath(doc: Doc, path: string): unknown {
  const at = parentOf(doc, path, false);
  return at ? at.parent[at.key] : undefined;
}

/**
 * Applies a MongoDB update document ($set, $unset, $inc, $setOnInsert) to `doc`, in place: `doc` is
 * always one the store just read (or an upsert's new document), and the result is serialized at once.
 */
export function applyUpdate(next: Doc, update: Doc, inserting: boolean): Doc {
  for (const [op, fields] of Object.entries(update)) {
    if (!isPlainObject(fields)) throw new UnsupportedQueryError(`the update ${op} without a document`);
    for (const [path, value] of Object.entries(fields)) {
      if (path === '_id' && op !== '$setOnInsert' && next._id !== undefined) {
        if (BSON.EJSON.stringify(value as never) === BSON.EJSON.stringify(next._id as never)) continue;
        throw new MongoServerError({ message: "Performing an update on the path '_id' would modify the immutable field '_id'", code: 66 });
      }
      switch (op) {
        case '$set': {
          if (value === undefined) break;
          const at = parentOf(next, path, true)!;
          at.parent[at.key] = value;
          break;
        }
        case '$setOnInsert': {
          if (!inserting || value === undefined) break;
          const at = parentOf(next, path, true)!;
          at.parent[at.key] = value;
          break;
        }
        case '$unset': {
          const at = parentOf(next, path, false);
          if (at) delete at.parent[at.key];
          break;
        }
        case '$inc': {
          const current = getPath(next, path);
          if (current !== undefined && typeof current !== 'number') throw new UnsupportedQueryError(`$inc of the non-number field ${path}`);
          const at = parentOf(next, path, true)!;
          at.parent[at.key] = ((current as number | undefined) ?? 0) + (value as number);
          break;
        }
        default:
          throw new UnsupportedQueryError(`the update operator ${op}`);
      }
    }
  }
  return next;
}

export const isUpdateDocument = (update: Doc): boolean => Object.keys(update).some((k) => k.startsWith('$'));

/** The document an upsert inserts: the filter's plain equalities, then the update. */
export function upsertBase(filter: Doc): Doc {
  const doc: Doc = {};
  for (const [path, value] of Object.entries(filter)) {
    if (path.startsWith('$')) {
      if (path === '$and' && Array.isArray(value)) for (const sub of value) Object.assign(doc, upsertBase(sub as Doc));
      continue;
    }
    let v = value;
    if (isPlainObject(v) && Object.keys(v).every((k) => k.startsWith('$'))) {
      if (!('$eq' in v)) continue;
      v = v.$eq;
    }
    const at = parentOf(doc, path, true)!;
    at.parent[at.key] = v;
  }
  return doc;
}
