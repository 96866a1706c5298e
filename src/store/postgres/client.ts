import type { Db } from 'mongodb';
import { PgDb } from './database.js';
import { PgEngine } from './engine.js';

/** The embedded store's client: one pool per process, a database per name (a PostgreSQL schema). */
export class PgStoreClient {
  readonly engine: PgEngine;
  private readonly dbs = new Map<string, PgDb>();

  constructor(url: string, timeoutMs: number, maxConnections?: number) {
    this.engine = new PgEngine(url, { timeoutMs, maxConnections });
  }

  /** Shaped as the driver's Db for the calls the stores make (see collection.ts). */
  db(name: string): Db {
    let db = this.dbs.get(name);
    if (!db) this.dbs.set(name, (db = new PgDb(this.engine, name)));
    return db as unknown as Db;
  }

  /**
   * Fresh planner statistics for every table of a database, as autovacuum gathers them a while after
   * a load: after writing many documents at once, so that the first queries after are planned on them.
   */
  async analyze(name: string): Promise<void> {
    const { rows } = await this.engine.query('tables', `SELECT tablename FROM pg_tables WHERE schemaname = $1`, [name]);
    for (const r of rows) await this.engine.query('analyze', `ANALYZE "${name}"."${String(r.tablename).replace(/"/g, '""')}"`);
  }

  close(): Promise<void> {
    return this.engine.close();
  }
}
