// The relay program as a person starts it (issue #34): `--help` and `--version` answer 0, bad usage
// answers 2 with a one-line reason, a secret on the command line is refused, and `policy --init`
// writes a default file that `policy` then reads back.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const bin = resolve('bin/platform-relay.mjs');
const dir = mkdtempSync(join(tmpdir(), 'relay-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function relay(args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PLATFORM_')));
  const r = spawnSync(process.execPath, [bin, ...args], {
    env: { ...clean, XDG_CONFIG_HOME: join(dir, 'config'), XDG_STATE_HOME: join(dir, 'state'), ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

describe('platform-relay', () => {
  it('prints its usage with --help', () => {
    const r = relay(['--help']);
    assert.equal(r.status, 0, r.err);
    assert.match(r.out, /--url <url>/);
    assert.match(r.out, /PLATFORM_RELAY_CLIENT_SECRET/);
  });

  it('prints its version', () => {
    const r = relay(['--version']);
    assert.equal(r.status, 0, r.err);
    assert.equal(r.out.trim(), JSON.parse(readFileSync('package.json', 'utf8')).version);
  });

  for (const [what, args, env, reason] of [
    ['no URL', ['--client-id', 'c'], { PLATFORM_RELAY_CLIENT_SECRET: 's' }, /--url \(or PLATFORM_URL\) is required/],
    ['no client id', ['--url', 'http://127.0.0.1:1'], { PLATFORM_RELAY_CLIENT_SECRET: 's' }, /--client-id/],
    ['no secret', ['--url', 'http://127.0.0.1:1', '--client-id', 'c'], {}, /the secret is missing/],
    ['a secret on the command line', ['--secret', 'hunter2'], {}, /never taken on the command line/],
    ['an unknown option', ['--frobnicate'], {}, /frobnicate/],
    ['a URL that is not one', ['--url', 'nope', '--client-id', 'c'], { PLATFORM_RELAY_CLIENT_SECRET: 's' }, /is not a URL/],
  ] as const)
    it(`exits 2 with one line on ${what}`, () => {
      const r = relay([...args], env);
      assert.equal(r.status, 2, r.err);
      assert.match(r.err, reason);
      assert.equal(r.err.trim().split('\n').length, 1, r.err);
      assert.ok(!r.err.includes('hunter2'));
    });

  it('writes a default policy with policy --init and prints it back', () => {
    const init = relay(['policy', '--init']);
    assert.equal(init.status, 0, init.err);
    const path = join(dir, 'config', 'platform-relay', 'policy.json');
    assert.match(init.out, new RegExp(path));
    assert.ok(JSON.parse(readFileSync(path, 'utf8')).$comment);
    const shown = relay(['policy']);
    assert.equal(shown.status, 0, shown.err);
    assert.match(shown.out, /"sandbox": "auto"/);
    assert.equal(relay(['policy', '--init']).status, 2, 'never overwrites the person file');
  });

  it('exits 2 naming the field of a bad policy file', () => {
    const r = relay(['--url', 'http://127.0.0.1:1', '--client-id', 'c', '--policy', resolve('package.json')], {
      PLATFORM_RELAY_CLIENT_SECRET: 's',
    });
    assert.equal(r.status, 2, r.err);
    assert.match(r.err, /the policy file .*package\.json/);
  });
});
