/** SQL text for names and field paths. Paths are inlined (not parameters) so expression indexes match them. */

export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function literal(text: string): string {
  if (text.includes('\0')) throw new Error('a NUL character cannot be part of a field name');
  return `'${text.replace(/'/g, "''")}'`;
}

/** A field path (`a.b.c`) as a JSONB expression over `column`: `doc->'a'->'b'->'c'`. */
export function pathExpr(path: string, column = 'doc'): string {
  if (!path || path.startsWith('$')) throw new Error(`unsupported field path ${JSON.stringify(path)}`);
  return `${column}${path
    .split('.')
    .map((segment) => `->${literal(segment)}`)
    .join('')}`;
}

/** The same path as text (the last step `->>`), for pattern matches. */
export function pathText(path: string, column = 'doc'): string {
  const segments = path.split('.');
  const last = segments.pop()!;
  return `${segments.length ? pathExpr(segments.join('.'), column) : column}->>${literal(last)}`;
}

/** A table's qualified name: the database is a schema, a collection a table. */
export function tableName(schema: string, collection: string): string {
  return `${ident(schema)}.${ident(collection)}`;
}

/** PostgreSQL names stop at 63 bytes: a longer one keeps its start and a hash of the whole. */
export function shortName(name: string): string {
  if (Buffer.byteLength(name) <= 63) return name;
  let hash = 0;
  for (const ch of name) hash = (Math.imul(hash, 31) + ch.codePointAt(0)!) >>> 0;
  return `${name.slice(0, 50)}_${hash.toString(36)}`;
}

/** Collects positional parameters ($1, $2, ...) as a statement is built. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown, cast = ''): string {
    this.values.push(value);
    return `$${this.values.length}${cast}`;
  }
}
