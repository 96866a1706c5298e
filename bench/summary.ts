// The end of `npm run bench`: every row of issue #23's first table and issue #31's goals that the benchmarks recorded
// (bench/goals.ts), in the table's order, each with its goal and whether this run met it.
import { existsSync, readFileSync } from 'node:fs';
import type { GoalRow } from './goals.js';

const order: GoalRow['row'][] = [
  'invocation',
  'tool-call',
  'indexing',
  'search-lag',
  'rest',
  'import',
  'relay',
  'search-quality',
  'scale',
  'soak',
];
/** Rows only some runs record: the soak is a run of its own (bench/soak.ts), the scale rows can be turned off (BENCH_SCALE=0). */
const optional: GoalRow['row'][] = ['search-quality', 'scale', 'soak'];

const file = process.env.BENCH_GOALS_FILE;
if (!file || !existsSync(file)) {
  console.error('bench/summary.ts: no BENCH_GOALS_FILE with recorded rows (run `npm run bench`)');
  process.exit(1);
}
const rows = readFileSync(file, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as GoalRow)
  .sort((a, b) => order.indexOf(a.row) - order.indexOf(b.row));
const cells = rows.map((r) => [
  r.what,
  r.measured,
  r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}×${r.baseline ? ` ${r.baseline}` : ''}`,
  r.goal,
  r.met ? 'met' : 'NOT met',
]);
const head = ['what', 'measured', 'against the same-run baseline', 'goal', ''];
const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i]!)).join(' | ');
console.log(`\nissues #23, #31, #33 and #34: the goals, this run (${rows.filter((r) => r.met).length} of ${rows.length} met)\n`);
console.log(line(head));
console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
for (const c of cells) console.log(line(c));
for (const missing of order.filter((o) => !optional.includes(o) && !rows.some((r) => r.row === o)))
  console.log(`(no row recorded for ${missing})`);
