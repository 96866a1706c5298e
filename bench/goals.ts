// The rows of issue #23's first table and issue #31's goals table, as each benchmark measures them: `npm run bench` runs every
// benchmark with BENCH_GOALS_FILE set, each one records its rows here, and bench/summary.ts prints
// them together at the end, every row with its goal. A benchmark run on its own just prints its rows.
import { appendFileSync } from 'node:fs';

export interface GoalRow {
  /** Which row of the table (its order in the summary). */
  row: 'invocation' | 'tool-call' | 'indexing' | 'search-lag' | 'rest' | 'import' | 'relay' | 'search-quality' | 'scale' | 'soak';
  /** What was measured, e.g. "invocation p50". */
  what: string;
  /** The measurement, with its unit, e.g. "115 ms". */
  measured: string;
  /** The same-run baseline it is a ratio against, if any, e.g. "GET /artifacts/{id} p50 12 ms". */
  baseline?: string;
  /** measured ÷ baseline (or baseline ÷ measured for throughput: always "how far from the baseline"). */
  ratio?: number;
  goal: string;
  met: boolean;
}

export function recordGoal(row: GoalRow): void {
  const ratio = row.ratio === undefined ? '' : ` (${row.ratio.toFixed(2)}×${row.baseline ? ` ${row.baseline}` : ''})`;
  console.log(`goal: ${row.what} = ${row.measured}${ratio}; goal ${row.goal}: ${row.met ? 'met' : 'NOT met'}`);
  const file = process.env.BENCH_GOALS_FILE;
  if (file) appendFileSync(file, `${JSON.stringify(row)}\n`);
}
