import { storeCursorMark } from '../deadline.js';

type Doc = Record<string, unknown>;

export interface FindSpec {
  filter: Doc;
  sort?: Doc;
  skip?: number;
  limit?: number;
  projection?: Doc;
}

/** Where a cursor's rows come from (PgCollection). */
export interface BatchReader {
  readBatches(spec: FindSpec, batch: number): AsyncIterable<Doc[]>;
}

/** Rows fetched per round trip when a read has no small limit (a server-side cursor, closed when done). */
const batchRows = 200;

/**
 * The subset of the driver's FindCursor the stores use: sort / skip / limit / project / map /
 * batchSize, then toArray, next, or `for await`. A read with a limit of at most `batchRows` is one
 * statement; a longer one reads in batches through a server-side cursor, so memory stays bounded.
 */
export class PgFindCursor<T = Doc> {
  readonly [storeCursorMark] = true;
  private mapper: ((doc: unknown) => unknown) | undefined;
  private buffered: unknown[] | undefined;
  private iterator: AsyncIterator<Doc[]> | undefined;
  private done = false;

  constructor(
    private readonly coll: BatchReader,
    private readonly spec: FindSpec,
  ) {}

  sort(sort: Doc | [string, 1 | -1][] | string, direction?: 1 | -1): this {
    if (typeof sort === 'string') this.spec.sort = { [sort]: direction ?? 1 };
    else if (Array.isArray(sort)) this.spec.sort = Object.fromEntries(sort);
    else this.spec.sort = sort;
    return this;
  }

  skip(n: number): this {
    this.spec.skip = n;
    return this;
  }

  limit(n: number): this {
    this.spec.limit = n === 0 ? undefined : Math.abs(n);
    return this;
  }

  project<P = Doc>(projection: Doc): PgFindCursor<P> {
    this.spec.projection = projection;
    return this as unknown as PgFindCursor<P>;
  }

  batchSize(): this {
    return this;
  }

  maxTimeMS(): this {
    return this;
  }

  hint(): this {
    return this;
  }

  comment(): this {
    return this;
  }

  map<U>(fn: (doc: T) => U): PgFindCursor<U> {
    const previous = this.mapper;
    this.mapper = previous ? (doc) => fn(previous(doc) as T) : (doc) => fn(doc as T);
    return this as unknown as PgFindCursor<U>;
  }

  private apply(doc: Doc): T {
    return (this.mapper ? this.mapper(doc) : doc) as T;
  }

  async toArray(): Promise<T[]> {
    const out: T[] = [];
    for await (const doc of this) out.push(doc);
    return out;
  }

  private async fill(): Promise<boolean> {
    if (this.buffered?.length) return true;
    if (this.done) return false;
    this.iterator ??= this.coll.readBatches(this.spec, batchRows)[Symbol.asyncIterator]();
    const next = await this.iterator.next();
    if (next.done) {
      this.done = true;
      return false;
    }
    this.buffered = next.value;
    return this.buffered.length > 0 || this.fill();
  }

  async next(): Promise<T | null> {
    if (!(await this.fill())) return null;
    return this.apply(this.buffered!.shift() as Doc);
  }

  async hasNext(): Promise<boolean> {
    return this.fill();
  }

  async tryNext(): Promise<T | null> {
    return this.next();
  }

  async close(): Promise<void> {
    this.done = true;
    this.buffered = [];
    await this.iterator?.return?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: async () => {
        const value = await this.next();
        return value === null ? { done: true, value: undefined } : { done: false, value };
      },
      return: async () => {
        await this.close();
        return { done: true, value: undefined };
      },
    };
  }
}
