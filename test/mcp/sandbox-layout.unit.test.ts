// The sandbox's file system on layouts a review found risky, run for real under bubblewrap: a runner in
// ~/bin must not expose the home folder (nor the dev folder inside it), and a checkout in the home
// folder stays usable with its own dev folder hidden. No engines: the layout is built in .dev/.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultLimits } from '../../src/stdio-servers/catalog.js';
import { Sandbox } from '../../src/stdio-servers/sandbox.js';

// Not under /tmp: the sandbox's /tmp is a tmpfs of its own, which would hide the layout anyway.
let root: string;
let home: string;
const secret = 'the-dev-master-key-must-stay-hidden';

function run(sandbox: Sandbox, script: string) {
  const { command, args, env } = sandbox.command({ command: 'sh', args: ['-c', script], network: false, limits: defaultLimits }, {});
  const r = spawnSync(command, args, { env, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}`, args };
}

before(() => {
  mkdirSync(resolve('.dev'), { recursive: true });
  root = mkdtempSync(join(resolve('.dev'), 'sandbox-layout-'));
  chmodSync(root, 0o755); // readable by the sandbox's user: only the hiding may keep the secrets from it
  home = join(root, 'home');
  for (const dir of ['bin', 'proj/.dev', '.aws']) mkdirSync(join(home, dir), { recursive: true });
  copyFileSync('/bin/true', join(home, 'bin', 'deno'));
  writeFileSync(join(home, 'proj', '.dev', 'master.key'), secret, { mode: 0o644 });
  writeFileSync(join(home, '.aws', 'credentials'), secret, { mode: 0o644 });
  writeFileSync(join(home, 'proj', 'server.mjs'), 'ok', { mode: 0o644 });
});
after(() => rmSync(root, { recursive: true, force: true }));

describe('the sandbox file system', () => {
  it('exposes a runner in ~/bin without exposing the home folder or the dev folder in it', () => {
    const sandbox = new Sandbox({
      bwrap: 'bwrap',
      hidden: [home, join(home, 'proj', '.dev')],
      path: `${join(home, 'bin')}:/usr/bin:/bin`,
      workDir: '/',
    });
    const r = run(
      sandbox,
      `test -x ${home}/bin/deno && echo runner-visible; cat ${home}/proj/.dev/master.key ${home}/.aws/credentials 2>&1; true`,
    );
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /runner-visible/);
    assert.ok(!r.out.includes(secret), r.out);
    assert.ok(!r.args.some((a, i) => a === home && r.args[i - 1] === home), 'no bind of the home folder itself');
  });

  it('keeps a checkout in the home folder usable, with its dev folder hidden again and every hidden folder read-only', () => {
    const work = join(home, 'proj');
    const sandbox = new Sandbox({ bwrap: 'bwrap', hidden: [home, join(work, '.dev')], path: '/usr/bin:/bin', workDir: work });
    const r = run(sandbox, `cat server.mjs; echo; cat .dev/master.key ${home}/.aws/credentials 2>&1; touch ${home}/x .dev/x 2>&1; pwd`);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /^ok$/m);
    assert.match(r.out, new RegExp(`^${work}$`, 'm'));
    assert.ok(!r.out.includes(secret), r.out);
    assert.match(r.out, /Read-only file system|Permission denied/);
  });

  it('holds for a worker that is not root: its own user namespace, hidden folders read-only, only /tmp writable', (t) => {
    // The unprivileged worker runs this checkout's code: a clone in a folder that user cannot read (under /root, say) cannot show it.
    if (
      spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'test', '-r', resolve('node_modules/tsx/package.json')])
        .status !== 0
    ) {
      t.diagnostic(`not run: uid 65534 cannot read ${process.cwd()}`);
      return;
    }
    const dev = join(home, 'proj', '.dev');
    const r = spawnSync(
      'setpriv',
      [
        '--reuid=65534',
        '--regid=65534',
        '--clear-groups',
        process.execPath,
        '--import',
        'tsx',
        'test/fixtures/unprivileged-sandbox.ts',
        dev,
        join(home, 'proj'),
      ],
      {
        env: { PATH: process.env.PATH, HOME: '/tmp' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
    const result = JSON.parse(r.stdout.trim().split('\n').pop()!);
    assert.equal(result.probe, null, 'the sandbox starts for an unprivileged worker');
    assert.equal(result.status, 0, result.err);
    assert.match(result.out, /^65534$/m);
    assert.deepEqual(result.out.match(/^wrote .*$/gm), ['wrote /tmp/x']);
    assert.ok(!result.out.includes(secret), result.out);
  });
});
