// esbuild strips the console's types without checking them: this checks them, with the console's own
// tsconfig (DOM, Preact's JSX), as `npm run typecheck` does.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { it } from 'node:test';
import assert from 'node:assert/strict';

const root = resolve(import.meta.dirname, '../..');

it('the web console type-checks', () => {
  const run = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', 'web/console'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.error, undefined, `tsc did not run: ${run.error?.message}`);
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
