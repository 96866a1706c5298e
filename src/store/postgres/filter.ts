import { Params, pathExpr, pathText } from './sql.js';
import { toJsonText } from './json.js';

/**
 * Fields that hold arrays and are queried by element (`{readers: person}` matches a document whose
 * `readers` contains the person, as in MongoDB). Their equality is JSONB containment, served by a GIN
 * index; every other field's equality is `=`, served by a btree expression index (and usable for
 * ordered, limited scans). A query by element on a field not listed here would match only a
 * document whose whole value equals it: list the field here.
 */
// `context.tags`: an artifact's tags (issue #36), a list of strings, queried by tag as on MongoDB. No
// query of the platform reads it today (views filter tags on the documents: store/view-queries.ts).
export const arrayFields = new Set(['readers', 'server_client_ids', 'content_types', 'context.tags']);

/** A path through an array field (`content_types.mime`): the array's path, and the rest inside each element. */
function throughArray(path: string): { array: string; rest: string[] } | null {
  const segments = path.split('.');
  for (let i = 1; i < segments.length; i++) {
    const prefix = segments.slice(0, i).join('.');
    if (arrayFields.has(prefix)) return { array: prefix, rest: segments.slice(i) };
  }
  return null;
}

const nest = (rest: string[], value: unknown): unknown => rest.reduceRight((inner, key) => ({ [key]: inner }), value);

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

const isOperatorObject = (v: unknown): v is Record<string, unknown> =>
  isPlainObject(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => k.startsWith('$'));

export class UnsupportedQueryError extends Error {
  constructor(what: string) {
    super(`the embedded PostgreSQL store does not support ${what}`);
    this.name = 'UnsupportedQueryError';
  }
}

/** The JSON type a comparison brackets to: MongoDB compares a number only with numbers, a date with dates. */
function typeGuard(expr: string, value: unknown): string {
  if (value instanceof Date) return `jsonb_typeof(${expr}) = 'object' AND ${expr} ? '$date'`;
  if (typeof value === 'number' || typeof value === 'bigint') return `jsonb_typeof(${expr}) = 'number'`;
  if (typeof value === 'string') return `jsonb_typeof(${expr}) = 'string'`;
  if (typeof value === 'boolean') return `jsonb_typeof(${expr}) = 'boolean'`;
  return 'TRUE';
}

function equality(path: string, value: unknown, p: Params): string {
  const expr = pathExpr(path);
  if (value === null || value === undefined) return `(${expr} IS NULL OR ${expr} = 'null'::jsonb)`;
  if (value instanceof RegExp) return regex(path, value.source, value.flags, p);
  const through = throughArray(path);
  // An element of the array has the value at the rest of the path (MongoDB's match through arrays).
  if (through) return `${pathExpr(through.array)} @> ${p.add(toJsonText([nest(through.rest, value)]), '::jsonb')}`;
  const json = p.add(toJsonText(value), '::jsonb');
  if (arrayFields.has(path) && !Array.isArray(value)) return `${expr} @> ${json}`;
  return `${expr} = ${json}`;
}

function regex(path: string, source: string, flags: string, p: Params): string {
  const unknownFlags = flags.replace(/[is]/g, '');
  if (unknownFlags) throw new UnsupportedQueryError(`the regular-expression option(s) ${JSON.stringify(unknownFlags)}`);
  // JavaScript's \d, \s, \w, ^, $ and (a|b) read the same in PostgreSQL's advanced regular expressions.
  return `(${pathText(path)}) ${flags.includes('i') ? '~*' : '~'} ${p.add(source)}`;
}

function fieldCondition(path: string, cond: unknown, p: Params): string {
  if (!isOperatorObject(cond)) return equality(path, cond, p);
  const expr = pathExpr(path);
  const parts: string[] = [];
  const ops = cond as Record<string, unknown>;
  for (const [op, value] of Object.entries(ops)) {
    switch (op) {
      case '$eq':
        parts.push(equality(path, value, p));
        break;
      case '$ne':
        parts.push(`NOT COALESCE(${equality(path, value, p)}, FALSE)`);
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte': {
        const sqlOp = ({ $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as Record<string, string>)[op];
        if (value === null || value === undefined) {
          parts.push(op === '$gte' || op === '$lte' ? equality(path, null, p) : 'FALSE');
          break;
        }
        if (typeof value === 'number' && !Number.isFinite(value)) {
          // JSON has no infinities: every number is above -Infinity and below +Infinity.
          const all = (value === -Infinity && (op === '$gt' || op === '$gte')) || (value === Infinity && (op === '$lt' || op === '$lte'));
          parts.push(all ? typeGuard(expr, value) : 'FALSE');
          break;
        }
        parts.push(`(${expr} ${sqlOp} ${p.add(toJsonText(value), '::jsonb')} AND ${typeGuard(expr, value)})`);
        break;
      }
      case '$in':
      case '$nin': {
        if (!Array.isArray(value)) throw new UnsupportedQueryError(`${op} without an array`);
        if (value.length === 1) {
          // One value is an equality, which the planner can use for an ordered index scan.
          parts.push(op === '$in' ? equality(path, value[0], p) : `NOT COALESCE(${equality(path, value[0], p)}, FALSE)`);
          break;
        }
        const scalars = value.filter((v) => v !== null && v !== undefined && !(v instanceof RegExp));
        const alternatives: string[] = [];
        if (scalars.length && throughArray(path)) {
          for (const v of scalars) alternatives.push(equality(path, v, p));
        } else if (scalars.length) {
          alternatives.push(
            arrayFields.has(path)
              ? `${expr} @> ANY(${p.add(
                  scalars.map((v) => toJsonText(v)),
                  '::jsonb[]',
                )})`
              : `${expr} = ANY(${p.add(
                  scalars.map((v) => toJsonText(v)),
                  '::jsonb[]',
                )})`,
          );
        }
        for (const v of value) if (v === null || v === undefined || v instanceof RegExp) alternatives.push(equality(path, v, p));
        const any = alternatives.length ? `(${alternatives.join(' OR ')})` : 'FALSE';
        parts.push(op === '$in' ? any : `NOT COALESCE(${any}, FALSE)`);
        break;
      }
      case '$exists':
        parts.push(value ? `${expr} IS NOT NULL` : `${expr} IS NULL`);
        break;
      case '$regex': {
        const options = typeof ops.$options === 'string' ? ops.$options : '';
        const source = value instanceof RegExp ? value.source : String(value);
        const flags = value instanceof RegExp ? value.flags + options : options;
        parts.push(regex(path, source, flags, p));
        break;
      }
      case '$options':
        if (!('$regex' in ops)) throw new UnsupportedQueryError('$options without $regex');
        break;
      case '$not': {
        parts.push(`NOT COALESCE(${fieldCondition(path, value, p)}, FALSE)`);
        break;
      }
      default:
        throw new UnsupportedQueryError(`the query operator ${op}`);
    }
  }
  return parts.length === 1 ? parts[0]! : `(${parts.join(' AND ')})`;
}

/** A MongoDB filter as a SQL condition over the `doc` column; its values become parameters of `p`. */
export function whereClause(filter: Record<string, unknown> | undefined, p: Params): string {
  if (!filter) return 'TRUE';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined) continue; // the driver drops undefined fields (ignoreUndefined aside)
    if (key === '$and' || key === '$or' || key === '$nor') {
      if (!Array.isArray(value) || value.length === 0) throw new UnsupportedQueryError(`${key} without a non-empty array`);
      const subs = value.map((sub) => `(${whereClause(sub as Record<string, unknown>, p)})`);
      if (key === '$and') parts.push(subs.join(' AND '));
      else if (key === '$or') parts.push(`(${subs.join(' OR ')})`);
      else parts.push(`NOT COALESCE((${subs.join(' OR ')}), FALSE)`);
      continue;
    }
    if (key === '$comment') continue;
    if (key.startsWith('$')) throw new UnsupportedQueryError(`the query operator ${key}`);
    parts.push(fieldCondition(key, value, p));
  }
  return parts.length ? parts.join(' AND ') : 'TRUE';
}

/** A MongoDB sort as ORDER BY: missing and null first when ascending, as MongoDB orders them. */
export function orderBy(sort: Record<string, unknown> | undefined): string {
  if (!sort) return '';
  const terms = Object.entries(sort).map(([path, dir]) => {
    const desc = dir === -1 || dir === 'desc' || dir === 'descending';
    if (!desc && !(dir === 1 || dir === 'asc' || dir === 'ascending')) throw new UnsupportedQueryError(`the sort ${JSON.stringify(dir)}`);
    return `${pathExpr(path)} ${desc ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'}`;
  });
  return terms.length ? ` ORDER BY ${terms.join(', ')}` : '';
}
