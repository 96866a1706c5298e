import pg from 'pg';
import { MongoServerError } from 'mongodb';
import { StorageUnavailableError } from '../deadline.js';

/** SQLSTATEs that mean "the engine is not answering now" rather than "this call is wrong". */
const unavailableStates = new Set(['57014', '57P01', '57P02', '57P03', '53300', '08000', '08003', '08006', '08001', '08004', '25P03']);

/** A pg failure in the store's terms: a unique violation is MongoDB's E11000, an unreachable engine a StorageUnavailableError. */
export function translateError(err: unknown, what: string): unknown {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e?.code === '23505') {
    return new MongoServerError({ message: `E11000 duplicate key error ${what} index: ${e.constraint ?? 'unknown'}`, code: 11000 });
  }
  // A socket failure (the server restarting or gone: ECONNREFUSED, ENOENT, ECONNRESET, EPIPE, EAGAIN)
  // is Node's own error, whose code is not a SQLSTATE.
  const socketFailure = typeof (err as { syscall?: unknown })?.syscall === 'string';
  if ((e?.code && unavailableStates.has(e.code)) || !e?.code || socketFailure) {
    const message = e?.message ?? String(err);
    // pg's own timeouts and connection failures carry no SQLSTATE.
    if (e?.code || /timeout|terminated|ECONNREFUSED|ENOENT|ECONNRESET|EPIPE|Connection|connect/i.test(message))
      return new StorageUnavailableError(`${what} failed: storage unavailable (${message})`, { cause: err });
  }
  return err;
}

export interface EngineOptions {
  /** The deadline of each statement, in ms (server side, and the client's read timeout). */
  timeoutMs: number;
  /** Connections per process. */
  maxConnections?: number;
}

/** One process's connection pool to the embedded store's PostgreSQL, with a deadline on every statement. */
export class PgEngine {
  readonly pool: pg.Pool;
  /** Told of every statement before it runs (plan tests record them to EXPLAIN each). */
  onStatement: ((text: string, values: unknown[]) => void) | undefined;

  constructor(
    url: string,
    readonly opts: EngineOptions,
  ) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: opts.maxConnections ?? 10,
      connectionTimeoutMillis: Math.min(5000, opts.timeoutMs),
      idleTimeoutMillis: 30_000,
      // The server ends a statement at its deadline; the client stops waiting a little after (a stalled
      // server that cannot even cancel), and a connection whose statement timed out is dropped, not reused.
      statement_timeout: opts.timeoutMs,
      query_timeout: opts.timeoutMs + 1000,
      // A cursor's reader may take a while between batches (MongoDB keeps an idle cursor 10 minutes).
      idle_in_transaction_session_timeout: 5 * 60_000,
      application_name: 'platform',
    });
    // An idle connection the server closed (a restart) is dropped by the pool; nothing to tell anyone.
    this.pool.on('error', () => undefined);
    // A checked-out connection whose server goes away (killed, restarted) emits 'error' as well as
    // failing its query; the pool listens only while it is idle, and an unheard 'error' would end the
    // process. The failed call is told through its query; the pool drops the connection on release.
    this.pool.on('connect', (client) => client.on('error', () => undefined));
  }

  /** A connection from the pool (its wait bounded by connectionTimeoutMillis). */
  private async checkout(what: string): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (err) {
      throw translateError(err, what);
    }
  }

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(what: string, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const client = await this.checkout(what);
    try {
      this.onStatement?.(text, values ?? []);
      const result = await client.query<R>(text, values);
      client.release();
      return result;
    } catch (err) {
      // A connection whose statement failed for the engine's sake (timeout, dropped) is not reused.
      const translated = translateError(err, what);
      client.release(translated instanceof StorageUnavailableError ? (translated as Error) : undefined);
      throw translated;
    }
  }

  /** Runs `work` in one transaction on one connection (read-modify-write updates). */
  async transaction<T>(what: string, work: (q: (text: string, values?: unknown[]) => Promise<pg.QueryResult>) => Promise<T>): Promise<T> {
    const client = await this.checkout(what);
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const value = await work((text, values) => {
        this.onStatement?.(text, values ?? []);
        return client.query(text, values);
      });
      await client.query('COMMIT');
      return value;
    } catch (err) {
      const translated = translateError(err, what);
      if (translated instanceof StorageUnavailableError) broken = translated;
      else await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw translated;
    } finally {
      client.release(broken);
    }
  }

  /**
   * The rows of a long read in batches, through a server-side cursor in a read-only transaction on one
   * connection; each FETCH has the statement deadline, and the next is asked for before the reader
   * gets this one, so PostgreSQL reads while the reader works. Leaving early (break, return, a
   * failure) closes the cursor and frees the connection.
   */
  async *cursor<T>(
    what: string,
    text: string,
    values: unknown[],
    batch: number,
    decode: (rows: pg.QueryResultRow[]) => T[],
  ): AsyncGenerator<T[]> {
    const client = await this.checkout(what);
    let broken: Error | undefined;
    let open = false;
    try {
      await client.query('BEGIN READ ONLY');
      open = true;
      this.onStatement?.(text, values);
      await client.query(`DECLARE platform_cursor NO SCROLL CURSOR FOR ${text}`, values);
      const fetch = () => {
        const ahead = client.query(`FETCH ${batch} FROM platform_cursor`);
        ahead.catch(() => {}); // awaited below; a reader that stops early leaves it to the rollback
        return ahead;
      };
      // One batch ahead: PostgreSQL reads the next while the reader works on this one.
      let next = fetch();
      for (;;) {
        const { rows } = await next;
        const more = rows.length === batch;
        if (more) next = fetch();
        if (rows.length) yield decode(rows);
        if (!more) break;
      }
    } catch (err) {
      const translated = translateError(err, what);
      if (translated instanceof StorageUnavailableError) broken = translated;
      throw translated;
    } finally {
      if (open && !broken) await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
