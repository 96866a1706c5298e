// Every code file is as Prettier formats it (.prettierrc.json: one line width for the project).
// `npm run format` fixes what this finds.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { it } from 'node:test';
import assert from 'node:assert/strict';

const root = resolve(import.meta.dirname, '../..');

it('every code file is formatted', () => {
  const run = spawnSync(
    process.execPath,
    [join(root, 'node_modules/prettier/bin/prettier.cjs'), '--list-different', '**/*.{ts,tsx,mjs,cjs,css}'],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  assert.equal(run.error, undefined, `prettier did not run: ${run.error?.message}`);
  const unformatted = run.stdout.split('\n').filter(Boolean);
  assert.deepEqual(unformatted, [], `not formatted (run npm run format): ${unformatted.join(', ')}`);
  assert.equal(run.status, 0, run.stderr);
});
