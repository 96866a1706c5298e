// tsx strips types without checking them, so nothing else in `npm test` would notice a type error:
// the authenticated context (test/api/route-context.unit.test.ts's @ts-expect-error lines), the
// presenters typed by their response schemas, the contract's client script against the committed
// generated types. This runs the project's own check, as `npm run typecheck` does for src/, test/,
// bench/ and scripts/ (the console has test/web/console-types.unit.test.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { it } from 'node:test';

const root = resolve(import.meta.dirname, '../..');

it('the project type-checks', () => {
  const run = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', '.'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 300_000,
  });
  assert.equal(run.error, undefined, `tsc did not run: ${run.error?.message}`);
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
