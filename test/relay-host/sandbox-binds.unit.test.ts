// The relay's policy folders under bubblewrap (issue #34), for real: a folder inside the hidden home is
// shown read-only or writable as the policy says, a hidden folder inside a shown one (the relay's state)
// stays hidden, and the rest of the home stays hidden. Built in .dev/, since the sandbox's /tmp is its own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultLimits } from '../../src/stdio-servers/catalog.js';
import { Sandbox } from '../../src/stdio-servers/sandbox.js';

let root: string;
let home: string;
const secret = 'relay-state-must-stay-hidden';

before(() => {
  mkdirSync(resolve('.dev'), { recursive: true });
  root = mkdtempSync(join(resolve('.dev'), 'relay-binds-'));
  chmodSync(root, 0o755);
  home = join(root, 'home');
  for (const d of ['notes', 'out', 'work/.state', '.ssh']) mkdirSync(join(home, d), { recursive: true, mode: 0o777 });
  // As root the sandbox runs as another uid: the writable folder must be writable by it (a person's relay maps its own uid).
  chmodSync(join(home, 'out'), 0o777);
  writeFileSync(join(home, 'notes', 'a.txt'), 'note', { mode: 0o644 });
  writeFileSync(join(home, 'work', '.state', 'pins.json'), secret, { mode: 0o644 });
  writeFileSync(join(home, '.ssh', 'id'), secret, { mode: 0o644 });
});
after(() => rmSync(root, { recursive: true, force: true }));

function run(binds: { dir: string; write: boolean }[], script: string) {
  const sandbox = new Sandbox({ bwrap: 'bwrap', hidden: [home, join(home, 'work', '.state')], path: '/usr/bin:/bin', workDir: '/', binds });
  const { command, args, env } = sandbox.command({ command: 'sh', args: ['-c', script], network: false, limits: defaultLimits }, {});
  const r = spawnSync(command, args, { env, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('bind mounts of the stdio sandbox', () => {
  it('shows policy folders read-only or writable, and nothing else of the home folder', () => {
    const r = run(
      [
        { dir: join(home, 'notes'), write: false },
        { dir: join(home, 'out'), write: true },
      ],
      `cat ${home}/notes/a.txt; echo; touch ${home}/notes/x 2>/dev/null || echo notes-read-only; echo made > ${home}/out/made && echo out-written; cat ${home}/.ssh/id 2>&1; true`,
    );
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /^note$/m);
    assert.match(r.out, /notes-read-only/);
    assert.match(r.out, /out-written/);
    assert.equal(readFileSync(join(home, 'out', 'made'), 'utf8'), 'made\n');
    assert.ok(!r.out.includes(secret), r.out);
  });

  it('keeps a hidden folder hidden inside a bound one', () => {
    const r = run([{ dir: join(home, 'work'), write: false }], `ls ${home}/work/.state; cat ${home}/work/.state/pins.json 2>&1; true`);
    assert.equal(r.status, 0, r.out);
    assert.ok(!r.out.includes(secret), r.out);
  });

  it('changes nothing without binds', () => {
    const r = run([], `cat ${home}/notes/a.txt 2>&1; true`);
    assert.doesNotMatch(r.out, /^note$/m);
  });
});
