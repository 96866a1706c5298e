import { PgCollection } from './collection.js';
import { PgEngine } from './engine.js';
import { ident, pathExpr, shortName } from './sql.js';

type Doc = Record<string, unknown>;

const raceCodes = new Set(['23505', '42P07', '42P06', '42710']);

/**
 * A database of the embedded store: a PostgreSQL schema, one table per collection, created on first
 * use. Shaped like the driver's Db for the calls the platform makes (collection, listCollections,
 * dropDatabase, command ping).
 */
export class PgDb {
  private readonly tables = new Map<string, Promise<void>>();

  constructor(
    readonly engine: PgEngine,
    readonly databaseName: string,
  ) {}

  collection<T = Doc>(name: string): PgCollection<T> {
    return new PgCollection<T>(this, name);
  }

  /**
   * Fresh planner statistics for these collections, as autovacuum gathers them a while after a load:
   * called after writing many documents at once (a bulk import), so that the queries right after are
   * planned on what the tables now hold (issue #31: stale statistics made a page 130 ms).
   */
  async analyze(collections: string[]): Promise<void> {
    for (const name of collections) {
      await this.ensureTable(name);
      await this.engine.query('analyze', `ANALYZE ${ident(this.databaseName)}.${ident(name)}`);
    }
  }

  /** DDL that two processes may race to run: "already exists" is success. */
  async ddl(what: string, text: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.engine.query(what, text);
        return;
      } catch (err) {
        const code = (err as { code?: string; cause?: { code?: string } }).code;
        if (attempt < 3 && (raceCodes.has(code ?? '') || (err as { code?: number }).code === 11000)) continue;
        throw err;
      }
    }
  }

  ensureTable(name: string): Promise<void> {
    let ready = this.tables.get(name);
    if (!ready) {
      const table = `${ident(this.databaseName)}.${ident(name)}`;
      ready = (async () => {
        await this.ddl(`${this.databaseName}.create`, `CREATE SCHEMA IF NOT EXISTS ${ident(this.databaseName)}`);
        await this.ddl(`${this.databaseName}.${name}.create`, `CREATE TABLE IF NOT EXISTS ${table} (doc jsonb NOT NULL)`);
        await this.ddl(
          `${this.databaseName}.${name}.create`,
          `CREATE UNIQUE INDEX IF NOT EXISTS ${ident(`${name}___id_`.slice(0, 63))} ON ${table} ((doc->'_id') ASC NULLS FIRST)`,
        );
        await this.typeStatistics(name, '_id');
      })();
      ready.catch(() => this.tables.delete(name));
      this.tables.set(name, ready);
    }
    return ready;
  }

  /**
   * Statistics on a field's JSON type, next to each index on it: a range's type guard
   * (`jsonb_typeof(doc->'f') = 'string'`, filter.ts) has none otherwise, and PostgreSQL then guesses it
   * keeps 0.5 % of the rows, finds an ordered index scan with a LIMIT too costly, and reads the whole
   * table instead (measured: an events page 28 ms against 0.4 ms). PostgreSQL 14+ (expression
   * statistics); on an older server the plans are only less good.
   */
  async typeStatistics(collection: string, path: string): Promise<void> {
    const name = ident(shortName(`${collection}__${path}__type`));
    await this.ddl(
      `${this.databaseName}.${collection}.statistics`,
      `CREATE STATISTICS IF NOT EXISTS ${ident(this.databaseName)}.${name} ON (jsonb_typeof(${pathExpr(path)})) FROM ${ident(this.databaseName)}.${ident(collection)}`,
    ).catch((err: { code?: string }) => {
      if (err?.code !== '42601' && err?.code !== '0A000') throw err; // older than 14: no expression statistics
    });
  }

  async dropTable(name: string): Promise<void> {
    this.tables.delete(name);
    await this.engine.query(`${this.databaseName}.${name}.drop`, `DROP TABLE IF EXISTS ${ident(this.databaseName)}.${ident(name)}`);
  }

  listCollections(): { toArray(): Promise<{ name: string; type: 'collection' }[]> } {
    return {
      toArray: async () => {
        const { rows } = await this.engine.query(
          `${this.databaseName}.listCollections`,
          `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
          [this.databaseName],
        );
        return rows.map((r) => ({ name: r.name as string, type: 'collection' as const }));
      },
    };
  }

  async dropDatabase(): Promise<boolean> {
    this.tables.clear();
    await this.engine.query(`${this.databaseName}.dropDatabase`, `DROP SCHEMA IF EXISTS ${ident(this.databaseName)} CASCADE`);
    return true;
  }

  async command(command: Doc): Promise<Doc> {
    if ('ping' in command) {
      await this.engine.query(`${this.databaseName}.ping`, 'SELECT 1');
      return { ok: 1 };
    }
    throw new Error(`the embedded PostgreSQL store does not run the command ${Object.keys(command)[0]}`);
  }
}
