// Plan tests (issue #31): record every statement the platform sends to the embedded store while it
// does some work, EXPLAIN each one against the same data, and name the statements whose plan reads a
// whole table. No timing: the plan is the assertion.
import type { PgStoreClient } from '../../src/store/postgres/client.js';
import type { StoreClient } from '../../src/store/mongo.js';

export interface Recorded {
  text: string;
  values: unknown[];
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Plan Rows'?: number;
  Plans?: PlanNode[];
}

/** Starts recording the statements `store` runs; stop() ends it and returns them (each distinct text once, with its first values). */
export function recordStatements(store: StoreClient): { stop(): Recorded[] } {
  const engine = (store as PgStoreClient).engine;
  if (!engine) throw new Error('plan tests need the embedded store on PostgreSQL (TEST_STORE_URI=postgres://)');
  const seen = new Map<string, Recorded>();
  const previous = engine.onStatement;
  engine.onStatement = (text, values) => {
    previous?.(text, values);
    if (/^\s*(SELECT|WITH|UPDATE|DELETE)\b/i.test(text) && !seen.has(text)) seen.set(text, { text, values });
  };
  return {
    stop: () => {
      engine.onStatement = previous;
      return [...seen.values()];
    },
  };
}

function scans(node: PlanNode, out: { relation: string; rows: number }[]): void {
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name'])
    out.push({ relation: node['Relation Name'], rows: node['Plan Rows'] ?? 0 });
  for (const child of node.Plans ?? []) scans(child, out);
}

/** The number of rows PostgreSQL's statistics give each table of `schema` (after ANALYZE). */
export async function tableSizes(store: StoreClient, schema: string): Promise<Map<string, number>> {
  const engine = (store as PgStoreClient).engine;
  const { rows } = await engine.query(
    'sizes',
    `SELECT c.relname AS name, c.reltuples::bigint AS rows FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
    [schema],
  );
  return new Map(rows.map((r) => [r.name as string, Number(r.rows)]));
}

/** ANALYZE every table of the schema, so that plans are chosen as on a store that holds this data. */
export async function analyze(store: StoreClient, schema: string): Promise<void> {
  await (store as PgStoreClient).analyze(schema);
}

/**
 * The recorded statements whose plan reads a whole table of at least `minRows` rows (a Seq Scan):
 * each with its text and the table. An empty list is a pass.
 */
export async function wholeTableReads(
  store: StoreClient,
  schema: string,
  statements: Recorded[],
  minRows = 1000,
): Promise<{ text: string; relation: string; rows: number }[]> {
  const engine = (store as PgStoreClient).engine;
  const sizes = await tableSizes(store, schema);
  const found: { text: string; relation: string; rows: number }[] = [];
  for (const s of statements) {
    const { rows } = await engine.query('explain', `EXPLAIN (FORMAT JSON) ${s.text}`, s.values);
    const plan = (rows[0]!['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan;
    const seq: { relation: string; rows: number }[] = [];
    scans(plan, seq);
    for (const scan of seq) {
      const rows = sizes.get(scan.relation) ?? 0;
      if (rows >= minRows) found.push({ text: s.text.replace(/\s+/g, ' '), relation: scan.relation, rows });
    }
  }
  return found;
}
