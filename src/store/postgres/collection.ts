import { BSON, MongoBulkWriteError, MongoServerError } from 'mongodb';
import { storeCollectionMark } from '../deadline.js';
import type { PgEngine } from './engine.js';
import { PgFindCursor, type FindSpec } from './cursor.js';
import { arrayFields, isPlainObject, orderBy, UnsupportedQueryError, whereClause } from './filter.js';
import { fromJson, toJsonText } from './json.js';
import { ident, Params, pathExpr, shortName } from './sql.js';
import { applyUpdate, isUpdateDocument, upsertBase } from './update.js';

type Doc = Record<string, unknown>;
type Query = (text: string, values?: unknown[]) => Promise<{ rows: Doc[]; rowCount: number | null }>;

/** Rows and bytes (of JSON text) per insert statement: far inside the statement deadline and PostgreSQL's limits. */
const insertChunkRows = 1000;
const insertChunkBytes = 8 * 1024 * 1024;
/** A failed span this small is retried row by row rather than halved. */
const splitRows = 8;

type WriteError = { index: number; code: number; errmsg: string; message: string };
/** A document of an insert run: its position among the caller's operations, its _id and its JSON text. */
type Row = { position: number; id: unknown; text: string };
type InsertOutcome = { inserted: Row[]; errors: WriteError[] };

/**
 * An _id as the JSON text PostgreSQL's jsonb gives back for it (parsed and written again): for the
 * kinds whose text is the same both ways (strings, finite numbers, ObjectIds); undefined for others.
 */
function idKey(id: unknown): string | undefined {
  if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) || id instanceof BSON.ObjectId) return toJsonText(id);
  return undefined;
}

const isDuplicate = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

/** What the driver answers for an update or a replacement. */
const updateResult = (r: { matched: number; modified: number; upsertedId?: unknown }) => ({
  acknowledged: true as const,
  matchedCount: r.matched,
  modifiedCount: r.modified,
  upsertedCount: r.upsertedId === undefined ? 0 : 1,
  upsertedId: r.upsertedId ?? null,
});

/** Top-level keys only: the projection is done in SQL; a dotted one is done here, on the whole document. */
function projectionSql(projection: Doc | undefined, p: Params): { sql: string; inJs: Doc | undefined } {
  if (!projection || Object.keys(projection).length === 0) return { sql: 'doc', inJs: undefined };
  const entries = Object.entries(projection);
  for (const [, v] of entries) if (isPlainObject(v)) throw new UnsupportedQueryError('a projection operator');
  const included = entries.filter(([k, v]) => v && k !== '_id').map(([k]) => k);
  const inclusion = entries.some(([, v]) => v);
  if (!inclusion) {
    // Exclusion: drop the named fields.
    let sql = 'doc';
    for (const [k] of entries) sql = k.includes('.') ? `(${sql} #- ${p.add(k.split('.'), '::text[]')})` : `(${sql} - ${p.add(k)}::text)`;
    return { sql, inJs: undefined };
  }
  if (included.some((k) => k.includes('.'))) return { sql: 'doc', inJs: projection };
  const keep = projection._id === 0 || projection._id === false ? included : ['_id', ...included];
  return {
    sql: `(SELECT COALESCE(jsonb_object_agg(e.key, e.value), '{}'::jsonb) FROM jsonb_each(doc) e WHERE e.key = ANY(${p.add(keep, '::text[]')}))`,
    inJs: undefined,
  };
}

function projectInJs(doc: Doc, projection: Doc): Doc {
  const out: Doc = {};
  if (projection._id !== 0 && projection._id !== false && doc._id !== undefined) out._id = doc._id;
  for (const [path, on] of Object.entries(projection)) {
    if (!on || path === '_id') continue;
    const segments = path.split('.');
    let from: unknown = doc;
    for (const s of segments) from = from && typeof from === 'object' ? (from as Doc)[s] : undefined;
    if (from === undefined) continue;
    let to = out;
    for (const s of segments.slice(0, -1)) to = (to[s] ??= {}) as Doc;
    to[segments.at(-1)!] = from;
  }
  return out;
}

/** What a collection needs of its database (PgDb). */
export interface TableHost {
  readonly databaseName: string;
  readonly engine: PgEngine;
  ensureTable(name: string): Promise<void>;
  ddl(what: string, text: string): Promise<void>;
  typeStatistics(collection: string, path: string): Promise<void>;
  dropTable(name: string): Promise<void>;
}

/**
 * A collection of the embedded store: one PostgreSQL table of JSONB documents, with MongoDB's
 * semantics for the subset of the driver's Collection the platform uses (docs/decisions.md, "Embedded
 * store"). Unique indexes are PostgreSQL unique expression indexes, so a unique insert is atomic;
 * updates lock their row (SELECT ... FOR UPDATE), so they are atomic too, though the platform does
 * not rely on it (DESIGN principle 2).
 */
export class PgCollection<TSchema = Doc> {
  readonly [storeCollectionMark] = true;
  constructor(
    readonly pgdb: TableHost,
    readonly collectionName: string,
  ) {}

  get dbName(): string {
    return this.pgdb.databaseName;
  }

  get namespace(): string {
    return `${this.dbName}.${this.collectionName}`;
  }

  private get table(): string {
    return `${ident(this.dbName)}.${ident(this.collectionName)}`;
  }

  private async q(what: string, text: string, values?: unknown[]) {
    await this.pgdb.ensureTable(this.collectionName);
    return this.pgdb.engine.query<Doc>(`${this.namespace}.${what}`, text, values);
  }

  private async tx<T>(what: string, work: (q: Query) => Promise<T>): Promise<T> {
    await this.pgdb.ensureTable(this.collectionName);
    return this.pgdb.engine.transaction(`${this.namespace}.${what}`, work as never);
  }

  private decode(row: Doc, column = 'doc'): TSchema {
    return fromJson<TSchema>(row[column]);
  }

  private select(spec: FindSpec, p: Params, lock = false): string {
    const { sql } = projectionSql(spec.projection, p);
    const where = whereClause(spec.filter, p);
    let text = `SELECT ${sql} AS doc FROM ${this.table} WHERE ${where}${orderBy(spec.sort)}`;
    if (spec.limit !== undefined) text += ` LIMIT ${Math.floor(spec.limit)}`;
    if (spec.skip) text += ` OFFSET ${Math.floor(spec.skip)}`;
    if (lock) text += ' FOR UPDATE';
    return text;
  }

  /** The rows of a find, in batches; used by PgFindCursor. */
  async *readBatches(spec: FindSpec, batch: number): AsyncGenerator<Doc[]> {
    const p = new Params();
    const text = this.select(spec, p);
    const inJs = projectionSql(spec.projection, new Params()).inJs;
    const decode = (rows: Doc[]) => rows.map((r) => (inJs ? projectInJs(this.decode(r) as Doc, inJs) : (this.decode(r) as Doc)));
    if (spec.limit !== undefined && spec.limit <= batch) {
      yield decode((await this.q('find', text, p.values)).rows);
      return;
    }
    // Most reads are small: one statement with a limit first; only a read with more rows than a batch
    // is read again, from the start, through a server-side cursor (one snapshot, in bounded batches).
    const probeParams = new Params();
    const probeText = this.select({ ...spec, limit: Math.min(spec.limit ?? Infinity, batch + 1) }, probeParams);
    const probe = (await this.q('find', probeText, probeParams.values)).rows;
    if (probe.length <= batch) {
      yield decode(probe);
      return;
    }
    yield* this.pgdb.engine.cursor(`${this.namespace}.find`, text, p.values, batch, decode);
  }

  find(filter: Doc = {}, options: { sort?: Doc; skip?: number; limit?: number; projection?: Doc } = {}): PgFindCursor<TSchema> {
    return new PgFindCursor<TSchema>(this, {
      filter,
      sort: options.sort,
      skip: options.skip,
      limit: options.limit || undefined,
      projection: options.projection,
    });
  }

  async findOne(filter: Doc = {}, options: { sort?: Doc; skip?: number; projection?: Doc } = {}): Promise<TSchema | null> {
    const [doc] = await this.find(filter, { ...options, limit: 1 }).toArray();
    return doc ?? null;
  }

  async countDocuments(filter: Doc = {}, options: { limit?: number; skip?: number } = {}): Promise<number> {
    const p = new Params();
    let inner = `SELECT 1 FROM ${this.table} WHERE ${whereClause(filter, p)}`;
    if (options.limit) inner += ` LIMIT ${Math.floor(options.limit)}`;
    if (options.skip) inner += ` OFFSET ${Math.floor(options.skip)}`;
    const { rows } = await this.q('countDocuments', `SELECT count(*)::int AS n FROM (${inner}) x`, p.values);
    return rows[0]!.n as number;
  }

  async estimatedDocumentCount(): Promise<number> {
    const { rows } = await this.q('estimatedDocumentCount', `SELECT count(*)::int AS n FROM ${this.table}`);
    return rows[0]!.n as number;
  }

  async insertOne(doc: Doc): Promise<{ acknowledged: true; insertedId: unknown }> {
    if (doc._id === undefined) doc._id = new BSON.ObjectId();
    await this.q('insertOne', `INSERT INTO ${this.table} (doc) VALUES ($1::jsonb)`, [toJsonText(doc)]);
    return { acknowledged: true, insertedId: doc._id };
  }

  async insertMany(docs: Doc[], options: { ordered?: boolean } = {}) {
    const result = await this.bulkWrite(
      docs.map((document) => ({ insertOne: { document } })),
      options,
    );
    return { acknowledged: true, insertedCount: result.insertedCount, insertedIds: result.insertedIds };
  }

  /**
   * A run of inserts (insertMany, or consecutive insertOne operations of a bulkWrite) in chunks, one
   * multi-row statement each (issue #33: one statement per document was the bulk import's bottleneck).
   * `positions[i]` is the position of `docs[i]` in the caller's operations. Stops after the first failure
   * when ordered, as MongoDB does.
   */
  private async insertRun(docs: Doc[], positions: number[], ordered: boolean, out: InsertOutcome): Promise<boolean> {
    // _ids first, as the driver assigns them: every document has one afterwards, inserted or not.
    for (const doc of docs) if (doc._id === undefined) doc._id = new BSON.ObjectId();
    let chunk: Row[] = [];
    let bytes = 0;
    for (const [i, doc] of docs.entries()) {
      const text = toJsonText(doc);
      const size = Buffer.byteLength(text);
      if (chunk.length && (chunk.length >= insertChunkRows || bytes + size > insertChunkBytes)) {
        if (!(await this.insertSpan(chunk, ordered, true, out))) return false;
        chunk = [];
        bytes = 0;
      }
      chunk.push({ position: positions[i]!, id: doc._id, text });
      bytes += size;
    }
    return chunk.length ? this.insertSpan(chunk, ordered, true, out) : true;
  }

  /**
   * Rows as one statement (`tryWhole`), which is atomic: a duplicate anywhere writes none of them.
   * Then, unordered, once more skipping what collides (insertSkipping); ordered (or when _ids repeat)
   * the span is halved, down to one row per statement, so that exactly the rows MongoDB would insert
   * are, and each refused one is reported with its own error: a few duplicates among many rows cost
   * a few statements each, not one per row. Returns false once an ordered run must stop.
   */
  private async insertSpan(rows: Row[], ordered: boolean, tryWhole: boolean, out: InsertOutcome): Promise<boolean> {
    if (tryWhole) {
      try {
        await this.insertRows(rows.map((r) => r.text));
        for (const r of rows) out.inserted.push(r);
        return true;
      } catch (err) {
        if (!(err instanceof MongoServerError)) throw err;
        if (rows.length === 1) {
          out.errors.push({ index: rows[0]!.position, code: err.code as number, errmsg: err.message, message: err.message });
          return !ordered;
        }
      }
    }
    if (!ordered) {
      const keys = rows.map((r) => idKey(r.id));
      if (keys.every((k) => k !== undefined) && new Set(keys).size === keys.length) {
        await this.insertSkipping(rows, keys as string[], out);
        return true;
      }
    }
    // Small spans row by row; larger ones in halves. The second half of a failed span whose first half
    // went in holds the failure, so it is split without being tried whole again.
    if (rows.length <= splitRows) {
      for (const r of rows) if (!(await this.insertSpan([r], ordered, true, out))) return false;
      return true;
    }
    const half = Math.ceil(rows.length / 2);
    const before = out.errors.length;
    if (!(await this.insertSpan(rows.slice(0, half), ordered, true, out))) return false;
    return this.insertSpan(rows.slice(half), ordered, out.errors.length > before, out);
  }

  /**
   * Unordered, in one statement: every row that collides with nothing goes in (ON CONFLICT DO NOTHING
   * skips a row that would break any unique index, _id's or another, against a stored row or one
   * before it in the statement), and each skipped one is reported as MongoDB's duplicate key error.
   * Rows are told apart by _id (`keys`, distinct): a retried import whose rows are all stored costs two
   * statements per chunk, not one per row.
   */
  private async insertSkipping(rows: Row[], keys: string[], out: InsertOutcome): Promise<void> {
    const { rows: stored } = await this.q(
      'insertMany',
      `INSERT INTO ${this.table} (doc) SELECT value FROM jsonb_array_elements($1::jsonb) ON CONFLICT DO NOTHING RETURNING doc->'_id' AS id`,
      [`[${rows.map((r) => r.text).join(',')}]`],
    );
    const went = new Set(stored.map((r) => JSON.stringify(r.id)));
    for (const [i, r] of rows.entries()) {
      if (went.has(keys[i]!)) out.inserted.push(r);
      else {
        const errmsg = `E11000 duplicate key error ${this.namespace}.insertMany: the document with _id ${keys[i]} collides on a unique index`;
        out.errors.push({ index: r.position, code: 11000, errmsg, message: errmsg });
      }
    }
  }

  /** One statement, whatever the number of rows: the documents travel as one JSON array parameter. */
  private async insertRows(texts: string[]): Promise<void> {
    if (texts.length === 1) {
      await this.q('insertOne', `INSERT INTO ${this.table} (doc) VALUES ($1::jsonb)`, texts);
      return;
    }
    await this.q('insertMany', `INSERT INTO ${this.table} (doc) SELECT value FROM jsonb_array_elements($1::jsonb)`, [
      `[${texts.join(',')}]`,
    ]);
  }

  /**
   * Changes the first matching document (or every one): in one statement when the update only sets
   * or unsets top-level fields, else read, changed here and written back under the row's lock.
   */
  private async modify(
    what: string,
    filter: Doc,
    change: { update?: Doc; replacement?: Doc },
    opts: { upsert?: boolean; multi?: boolean; sort?: Doc },
  ): Promise<{ matched: number; modified: number; before: TSchema | null; after: TSchema | null; upsertedId?: unknown }> {
    for (let attempt = 0; ; attempt++) {
      try {
        const found = await this.modifyExisting(what, filter, change, opts);
        if (found.matched > 0 || !opts.upsert) return found;
        const base = change.replacement ? { ...change.replacement } : applyUpdate(upsertBase(filter), change.update!, true);
        if (change.replacement && base._id === undefined) {
          const fromFilter = upsertBase(filter)._id;
          if (fromFilter !== undefined) base._id = fromFilter;
        }
        await this.insertOne(base);
        return { matched: 0, modified: 0, before: null, after: base as TSchema, upsertedId: base._id };
      } catch (err) {
        // Two upserts of one new document: the loser's insert collides on _id, and it updates instead
        // (what MongoDB itself does).
        if (opts.upsert && attempt === 0 && isDuplicate(err)) continue;
        throw err;
      }
    }
  }

  private async modifyExisting(
    what: string,
    filter: Doc,
    change: { update?: Doc; replacement?: Doc },
    opts: { multi?: boolean; sort?: Doc },
  ): Promise<{ matched: number; modified: number; before: TSchema | null; after: TSchema | null }> {
    const { update, replacement } = change;
    if (update && !isUpdateDocument(update)) throw new UnsupportedQueryError('an update without operators (use replaceOne)');
    const simple =
      replacement !== undefined ||
      Object.entries(update!).every(
        ([op, fields]) =>
          (op === '$set' || op === '$unset' || op === '$setOnInsert') &&
          isPlainObject(fields) &&
          Object.keys(fields).every((k) => !k.includes('.') && k !== '_id'),
      );
    const p = new Params();
    const where = whereClause(filter, p);
    const limit = opts.multi ? '' : ' LIMIT 1';
    if (simple) {
      let next: string;
      if (replacement) {
        if (replacement._id !== undefined) {
          // Replacing keeps the document's _id; a different one is refused, as by MongoDB.
          next = `CASE WHEN target.before->'_id' = ${p.add(toJsonText(replacement._id), '::jsonb')} THEN ${p.add(toJsonText(replacement), '::jsonb')} ELSE NULL END`;
        } else next = `jsonb_build_object('_id', target.before->'_id') || ${p.add(toJsonText(replacement), '::jsonb')}`;
      } else {
        const set = Object.fromEntries(Object.entries((update!.$set as Doc) ?? {}).filter(([, v]) => v !== undefined));
        const unset = Object.keys((update!.$unset as Doc) ?? {});
        next = `(target.before || ${p.add(toJsonText(set), '::jsonb')}) - ${p.add(unset, '::text[]')}`;
      }
      const { rows } = await this.q(
        what,
        `WITH target AS (SELECT ctid AS row_id, doc AS before FROM ${this.table} WHERE ${where}${orderBy(opts.sort)}${limit} FOR UPDATE)
         UPDATE ${this.table} t SET doc = ${next} FROM target WHERE t.ctid = target.row_id
         RETURNING target.before AS before, t.doc AS after, (target.before IS DISTINCT FROM t.doc) AS changed`,
        p.values,
      ).catch((err: { code?: string }) => {
        if (err?.code === '23502') throw new MongoServerError({ message: "the replacement's _id differs from the document's", code: 66 });
        throw err;
      });
      return {
        matched: rows.length,
        modified: rows.filter((r) => r.changed).length,
        before: rows[0] ? this.decode(rows[0], 'before') : null,
        after: rows[0] ? this.decode(rows[0], 'after') : null,
      };
    }
    return this.tx(what, async (query) => {
      const { rows } = await query(
        `SELECT ctid AS row_id, doc FROM ${this.table} WHERE ${where}${orderBy(opts.sort)}${limit} FOR UPDATE`,
        p.values,
      );
      let modified = 0;
      let first: { before: TSchema; after: TSchema } | undefined;
      for (const row of rows) {
        const before = this.decode(row) as Doc;
        const beforeText = toJsonText(before);
        const after = applyUpdate(fromJson<Doc>(row.doc), update!, false);
        const afterText = toJsonText(after);
        if (afterText !== beforeText) {
          await query(`UPDATE ${this.table} SET doc = $1::jsonb WHERE ctid = $2`, [afterText, row.row_id]);
          modified++;
        }
        first ??= { before: before as TSchema, after: after as TSchema };
      }
      return { matched: rows.length, modified, before: first?.before ?? null, after: first?.after ?? null };
    });
  }

  async updateOne(filter: Doc, update: Doc, options: { upsert?: boolean; sort?: Doc } = {}) {
    const r = await this.modify('updateOne', filter, { update }, { upsert: options.upsert, sort: options.sort });
    return updateResult(r);
  }

  async updateMany(filter: Doc, update: Doc, options: { upsert?: boolean } = {}) {
    const r = await this.modify('updateMany', filter, { update }, { upsert: options.upsert, multi: true });
    return updateResult(r);
  }

  async replaceOne(filter: Doc, replacement: Doc, options: { upsert?: boolean } = {}) {
    if (isUpdateDocument(replacement)) throw new UnsupportedQueryError('a replacement with update operators');
    const r = await this.modify('replaceOne', filter, { replacement }, { upsert: options.upsert });
    return updateResult(r);
  }

  async findOneAndUpdate(
    filter: Doc,
    update: Doc,
    options: { returnDocument?: 'before' | 'after'; upsert?: boolean; sort?: Doc; projection?: Doc; includeResultMetadata?: boolean } = {},
  ): Promise<TSchema | null> {
    if (options.includeResultMetadata) throw new UnsupportedQueryError('findOneAndUpdate with includeResultMetadata');
    const r = await this.modify('findOneAndUpdate', filter, { update }, { upsert: options.upsert, sort: options.sort });
    const doc = options.returnDocument === 'after' ? r.after : r.before;
    return doc && options.projection ? (projectInJs(doc as Doc, options.projection) as TSchema) : doc;
  }

  private async remove(what: string, filter: Doc, multi: boolean): Promise<Doc[]> {
    const p = new Params();
    const where = whereClause(filter, p);
    const text = multi
      ? `DELETE FROM ${this.table} WHERE ${where} RETURNING doc`
      : `WITH target AS (SELECT ctid AS row_id FROM ${this.table} WHERE ${where} LIMIT 1 FOR UPDATE)
         DELETE FROM ${this.table} t USING target WHERE t.ctid = target.row_id RETURNING t.doc`;
    return (await this.q(what, text, p.values)).rows;
  }

  async deleteOne(filter: Doc = {}) {
    return { acknowledged: true, deletedCount: (await this.remove('deleteOne', filter, false)).length };
  }

  async deleteMany(filter: Doc = {}) {
    return { acknowledged: true, deletedCount: (await this.remove('deleteMany', filter, true)).length };
  }

  async findOneAndDelete(filter: Doc): Promise<TSchema | null> {
    const [row] = await this.remove('findOneAndDelete', filter, false);
    return row ? this.decode(row) : null;
  }

  /**
   * Operations in order; unordered ones go on past a failure, and every failure is reported. A run of
   * consecutive inserts is written in multi-row statements (insertRun), every other operation alone.
   */
  async bulkWrite(operations: Doc[], options: { ordered?: boolean } = {}) {
    const ordered = options.ordered !== false;
    const totals = { insertedCount: 0, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0 };
    const insertedIds: Record<number, unknown> = {};
    const upsertedIds: Record<number, unknown> = {};
    const writeErrors: WriteError[] = [];
    const kindOf = (op: Doc) => Object.keys(op)[0];
    for (let index = 0; index < operations.length; index++) {
      const [kind, spec] = Object.entries(operations[index]!)[0] as [string, Doc];
      if (kind === 'insertOne') {
        let end = index + 1;
        while (end < operations.length && kindOf(operations[end]!) === 'insertOne') end++;
        const docs = operations.slice(index, end).map((op) => (op.insertOne as Doc).document as Doc);
        // Spans are written in order, so successes and failures are found in the operations' order.
        const out: InsertOutcome = { inserted: [], errors: writeErrors };
        const positions = docs.map((_, i) => index + i);
        const goOn = await this.insertRun(docs, positions, ordered, out);
        for (const r of out.inserted) insertedIds[r.position] = r.id;
        totals.insertedCount += out.inserted.length;
        if (!goOn) break;
        index = end - 1;
        continue;
      }
      try {
        if (kind === 'updateOne' || kind === 'updateMany' || kind === 'replaceOne') {
          const r =
            kind === 'replaceOne'
              ? await this.replaceOne(spec.filter as Doc, spec.replacement as Doc, { upsert: spec.upsert as boolean })
              : await this[kind](spec.filter as Doc, spec.update as Doc, { upsert: spec.upsert as boolean });
          totals.matchedCount += r.matchedCount;
          totals.modifiedCount += r.modifiedCount;
          totals.upsertedCount += r.upsertedCount;
          if (r.upsertedId !== null) upsertedIds[index] = r.upsertedId;
        } else if (kind === 'deleteOne' || kind === 'deleteMany') {
          totals.deletedCount += (await this[kind](spec.filter as Doc)).deletedCount;
        } else throw new UnsupportedQueryError(`the bulk operation ${kind}`);
      } catch (err) {
        if (!(err instanceof MongoServerError)) throw err;
        writeErrors.push({ index, code: err.code as number, errmsg: err.message, message: err.message });
        if (ordered) break;
      }
    }
    const result = { ...totals, insertedIds, upsertedIds, ok: writeErrors.length ? 0 : 1 };
    if (writeErrors.length) {
      throw new MongoBulkWriteError(
        { message: writeErrors[0]!.errmsg, code: writeErrors[0]!.code, writeErrors: writeErrors.map((e) => ({ ...e, err: e })) } as never,
        result as never,
      );
    }
    return result;
  }

  async createIndex(keys: Doc, options: { unique?: boolean; name?: string; [other: string]: unknown } = {}): Promise<string> {
    const unsupported = Object.keys(options).filter((k) => !['unique', 'name', 'background'].includes(k));
    if (unsupported.length) throw new UnsupportedQueryError(`the index option(s) ${unsupported.join(', ')}`);
    const fields = Object.entries(keys);
    const name = options.name ?? fields.map(([k, v]) => `${k}_${v}`).join('_');
    const indexName = ident(shortName(`${this.collectionName}__${name}`));
    let body: string;
    if (fields.length === 1 && arrayFields.has(fields[0]![0]) && !options.unique) {
      body = `USING gin ((${pathExpr(fields[0]![0])}))`;
    } else {
      body = `(${fields
        .map(([k, v]) => {
          if (v !== 1 && v !== -1) throw new UnsupportedQueryError(`the index key ${k}: ${JSON.stringify(v)}`);
          return `(${pathExpr(k)}) ${v === -1 ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'}`;
        })
        .join(', ')})`;
    }
    await this.pgdb.ensureTable(this.collectionName);
    await this.pgdb.ddl(
      `${this.namespace}.createIndex`,
      `CREATE ${options.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${indexName} ON ${this.table} ${body}`,
    );
    for (const [path] of fields) await this.pgdb.typeStatistics(this.collectionName, path);
    return name;
  }

  async drop(): Promise<boolean> {
    await this.pgdb.dropTable(this.collectionName);
    return true;
  }

  aggregate(): never {
    throw new UnsupportedQueryError('aggregate (only the Atlas search backend aggregates; it needs MongoDB Atlas)');
  }

  /** The plan PostgreSQL chooses for a find (plan tests): EXPLAIN's JSON. */
  async explainFind(filter: Doc, options: { sort?: Doc; limit?: number; skip?: number; projection?: Doc } = {}): Promise<unknown> {
    const p = new Params();
    const text = this.select({ filter, ...options }, p);
    const { rows } = await this.q('explain', `EXPLAIN (FORMAT JSON) ${text}`, p.values);
    return rows[0]!['QUERY PLAN'];
  }
}
