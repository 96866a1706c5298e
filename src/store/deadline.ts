import {
  AbstractCursor,
  Collection,
  Db,
  MongoNetworkError,
  MongoOperationTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
} from 'mongodb';

/**
 * The default deadline of one storage call (STORAGE_TIMEOUT_MS overrides it per process). DESIGN
 * principle 2: every storage call has a deadline.
 */
export const defaultStorageTimeoutMs = 10_000;

/** @deprecated every call through the stores' Db has its deadline already (withStorageDeadlines). */
export const storageDeadlineMs = defaultStorageTimeoutMs;

/**
 * Storage did not answer: a call missed its deadline, or the driver could not reach the engine
 * (no server, a connection timed out or dropped, the pool's wait queue timed out, the server's own
 * maxTimeMS ran out). The API answers 503 `storage-unavailable`; an activity fails and Temporal
 * retries it.
 */
export class StorageUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
  }
}

/** A storage call that missed its deadline (a StorageUnavailableError). */
export class StorageDeadlineError extends StorageUnavailableError {
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`);
    this.name = 'StorageDeadlineError';
  }
}

/** MongoDB's MaxTimeMSExpired: the server gave up on a call at its maxTimeMS. */
const maxTimeExpired = 50;
const driverUnavailable = new Set([
  'MongoWaitQueueTimeoutError',
  'MongoPoolClearedError',
  'PoolClearedOnNetworkError',
  'MongoPoolClosedError',
]);

/** True for a failure that means "storage is not answering now", as opposed to a refused or wrong call. */
export function isStorageUnavailable(err: unknown): boolean {
  if (err instanceof StorageUnavailableError) return true;
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError || err instanceof MongoOperationTimeoutError)
    return true;
  if (err instanceof MongoServerError && err.code === maxTimeExpired) return true;
  return err instanceof Error && driverUnavailable.has(err.name);
}

/** The same failure as a StorageUnavailableError (the driver's error as its cause); anything else unchanged. */
export function asStorageUnavailable(err: unknown, what: string): unknown {
  if (err instanceof StorageUnavailableError || !isStorageUnavailable(err)) return err;
  return new StorageUnavailableError(`${what} failed: storage unavailable (${(err as Error).name}: ${(err as Error).message})`, {
    cause: err,
  });
}

/**
 * Waits for a storage call at most `ms`. A call that misses the deadline may still land on the
 * server; the driver's socket timeout (the same length) ends it there and frees its connection.
 */
export async function withDeadline<T>(what: string, work: Promise<T>, ms = defaultStorageTimeoutMs): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StorageDeadlineError(what, ms)), ms);
  });
  work.catch(() => undefined); // a call that fails after the deadline has nobody left to tell
  try {
    return await Promise.race([work, late]);
  } catch (err) {
    throw asStorageUnavailable(err, what);
  } finally {
    clearTimeout(timer);
  }
}

export interface DeadlineOptions {
  /** The deadline of each call, in ms. */
  ms: number;
  /** Told of a call that answered but took more than half its deadline (to see how close load gets). */
  onSlow?: (what: string, ms: number) => void;
  /** Told of every call once it settled: how long it took, and its failure (metrics, issue #22). */
  onCall?: (what: string, ms: number, err?: unknown) => void;
}

/** The embedded PostgreSQL store's collections and cursors (src/store/postgres), told apart without importing them. */
export const storeCollectionMark = Symbol.for('platform.store.collection');
export const storeCursorMark = Symbol.for('platform.store.cursor');
const isStoreCollection = (v: unknown): boolean => typeof v === 'object' && v !== null && storeCollectionMark in v;
const isStoreCursor = (v: unknown): boolean => typeof v === 'object' && v !== null && storeCursorMark in v;

const isThenable = (v: unknown): v is Promise<unknown> => typeof (v as { then?: unknown } | null)?.then === 'function';

async function timed<T>(what: string, work: Promise<T>, opts: DeadlineOptions): Promise<T> {
  const started = Date.now();
  let value: T;
  try {
    value = await withDeadline(what, work, opts.ms);
  } catch (err) {
    opts.onCall?.(what, Date.now() - started, err);
    throw err;
  }
  const took = Date.now() - started;
  opts.onCall?.(what, took);
  if (opts.onSlow && took > opts.ms / 2) opts.onSlow(what, took);
  return value;
}

/**
 * The cursor with a deadline on each step: next / hasNext / tryNext / close, each step of
 * `for await`, and each step of toArray (so a long read of a healthy engine is never cut). Builder methods (sort, limit, project, map, ...) keep the wrapper.
 */
function cursorWithDeadlines<C extends AbstractCursor>(cursor: C, what: string, opts: DeadlineOptions): C {
  // A step that failed (its deadline, say) closes the cursor: an open server cursor holds one of the
  // engine's connections until it is exhausted or closed (docs/decisions.md, "Cursors").
  const closing = <T>(work: Promise<T>) =>
    work.catch((err: unknown) => {
      void cursor.close().catch(() => undefined);
      throw err;
    });
  const proxy: C = new Proxy(cursor, {
    get(target, prop) {
      if (prop === Symbol.asyncIterator) {
        return () => {
          const inner = (target[Symbol.asyncIterator] as () => AsyncIterator<unknown>).call(target);
          const outer: AsyncIterableIterator<unknown> = {
            next: () => closing(timed(`${what} (next batch)`, inner.next(), opts)),
            return: (value?: unknown) =>
              inner.return ? timed(`${what} (close)`, inner.return(value), opts) : Promise.resolve({ done: true, value }),
            [Symbol.asyncIterator]: () => outer,
          };
          return outer;
        };
      }
      // Each batch has its deadline, not the whole read: a long read of a healthy engine is not cut.
      if (prop === 'toArray') {
        return async () => {
          const docs: unknown[] = [];
          for await (const doc of proxy as AsyncIterable<unknown>) docs.push(doc);
          return docs;
        };
      }
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (result === target) return proxy;
        if (isThenable(result))
          return prop === 'close' ? timed(`${what}.close`, result, opts) : closing(timed(`${what}.${String(prop)}`, result, opts));
        if (result instanceof AbstractCursor || isStoreCursor(result)) return cursorWithDeadlines(result as AbstractCursor, what, opts);
        return result;
      };
    },
  });
  return proxy;
}

/**
 * Documents per round trip when the caller does not say: the driver's first batch is 101, but each
 * getMore after it returns up to 16 MB, which the embedded engine took over 10 s to produce (5,000
 * artifacts with their vectors). A batch this size keeps each round trip well inside the deadline.
 */
export const defaultBatchSize = 100;

function boundedBatches(prop: string | symbol, result: unknown, args: unknown[]): undefined {
  if (
    (prop === 'find' || prop === 'aggregate') &&
    result instanceof AbstractCursor &&
    (args[1] as { batchSize?: number } | undefined)?.batchSize === undefined
  ) {
    result.batchSize(defaultBatchSize);
  }
  return undefined;
}

/** Wraps what a collection or database method returns: a promise gets a deadline, a cursor deadlines per step. */
function wrapMethods<T extends object>(
  target: T,
  name: string,
  opts: DeadlineOptions,
  extra?: (prop: string | symbol, result: unknown, args: unknown[]) => unknown,
): T {
  return new Proxy(target, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(t, args);
        const wrapped = extra?.(prop, result, args);
        if (wrapped !== undefined) return wrapped;
        const what = `${name}.${String(prop)}`;
        if (isThenable(result)) return timed(what, result, opts);
        if (result instanceof AbstractCursor || isStoreCursor(result)) return cursorWithDeadlines(result as AbstractCursor, what, opts);
        return result;
      };
    },
  });
}

/**
 * The database every store uses, with a deadline on every call made through it, at one place
 * rather than in each store method: each promise a collection or the database returns, and each
 * step of a cursor. A missed deadline, or a driver failure that means the engine is unreachable,
 * rejects with StorageUnavailableError. The client's own timeouts (createMongoClient) bound the
 * same call inside the driver and free its connection.
 */
export function withStorageDeadlines(db: Db, opts: DeadlineOptions): Db {
  return wrapMethods(db, db.databaseName, opts, (prop, result) => {
    if (prop === 'collection' && (result instanceof Collection || isStoreCollection(result)))
      return wrapMethods(result as Collection, (result as Collection).collectionName, opts, boundedBatches);
    return undefined;
  });
}
