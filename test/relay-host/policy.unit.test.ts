// The relay's local policy (issue #34): a bad file names its field; packages match by name (scoped,
// pinned, uvx --from), unknown runner flags and inline code are refused; a script must really lie in a
// policy folder (a symlink or `..` out of it is refused).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  checkEnv,
  checkRepository,
  checkStdio,
  loadPolicy,
  policySchema,
  PolicyFileError,
  type Policy,
} from '../../src/relay-host/policy.js';

let root: string;
const policy = (p: Partial<Policy> & Record<string, unknown>): Policy => policySchema.parse(p);
const refusedRule = (v: ReturnType<typeof checkStdio>) => (v.ok ? null : v.rule);

before(() => {
  root = mkdtempSync(join(tmpdir(), 'relay-policy-'));
  mkdirSync(join(root, 'allowed'));
  mkdirSync(join(root, 'outside'));
  writeFileSync(join(root, 'allowed', 'server.py'), 'print(1)');
  writeFileSync(join(root, 'outside', 'evil.py'), 'print(2)');
  symlinkSync(join(root, 'outside', 'evil.py'), join(root, 'allowed', 'link.py'));
});
after(() => rmSync(root, { recursive: true, force: true }));

describe('the policy file', () => {
  it('gives the defaults when there is no file: every command, no package, no network, the sandbox on', () => {
    const { policy: p, exists } = loadPolicy(join(root, 'none.json'));
    assert.equal(exists, false);
    assert.deepEqual(p.commands, ['npx', 'uvx', 'python', 'python3', 'node', 'deno']);
    assert.deepEqual(p.packages, []);
    assert.equal(p.network, false);
    assert.equal(p.sandbox, 'auto');
  });

  for (const [name, doc, field] of [
    ['an unknown command', { commands: ['bash'] }, /commands\.0/],
    ['a relative folder', { folders: [{ path: 'rel/dir' }] }, /folders\.0\.path must be an absolute path/],
    ['a bad repository', { repositories: ['not a repo'] }, /repositories\.0 must be owner\/name/],
    ['an unknown field', { netwrk: true }, /netwrk/],
    ['a bad sandbox value', { sandbox: 'off' }, /sandbox/],
  ] as const)
    it(`names the field of ${name}`, () => {
      const file = join(root, `bad-${name.replace(/\W/g, '')}.json`);
      writeFileSync(file, JSON.stringify(doc));
      assert.throws(
        () => loadPolicy(file),
        (e: Error) => e instanceof PolicyFileError && field.test(e.message) && e.message.includes(file),
      );
    });

  it('says when the file is not JSON', () => {
    const file = join(root, 'broken.json');
    writeFileSync(file, '{ "commands": [');
    assert.throws(() => loadPolicy(file), /is not valid JSON/);
  });
});

describe('npx and uvx packages', () => {
  const p = policy({ packages: ['@modelcontextprotocol/server-everything', 'mcp-server-time', 'left-pad@1.3.0', 'pinned-py==2.0'] });
  const cwd = root;
  it('matches a scoped package with or without a version against a bare entry', () => {
    for (const args of [
      ['-y', '@modelcontextprotocol/server-everything', 'stdio'],
      ['--no-install', '@modelcontextprotocol/server-everything@2026.8.31', 'stdio'],
    ])
      assert.deepEqual(checkStdio(p, 'npx', args, cwd).ok, true, args.join(' '));
  });
  it('refuses -p/--package and -c/--call, with which npx runs any command beside an allowed package', () => {
    for (const args of [
      ['-p', '@modelcontextprotocol/server-everything', 'mcp-server-everything'],
      ['--package=@modelcontextprotocol/server-everything', '-c', 'node -e "process.exit(7)"'],
      ['--package=@modelcontextprotocol/server-everything', '--package=evil', 'evil-bin'],
      ['-p', '@modelcontextprotocol/server-everything', 'node', '-e', 'require("child_process")'],
      ['-y', '--call', 'sh', '@modelcontextprotocol/server-everything'],
    ])
      assert.match(refusedRule(checkStdio(p, 'npx', args, cwd)) ?? 'allowed', /npx flag/, args.join(' '));
  });
  it('refuses another package, a look-alike scope, or a path/URL spec', () => {
    for (const spec of [
      '@evil/server-everything',
      'server-everything',
      'github:modelcontextprotocol/servers',
      './local',
      'https://x.example/p.tgz',
    ])
      assert.match(refusedRule(checkStdio(p, 'npx', ['-y', spec], cwd)) ?? '', /not in the policy|not a registry package/, spec);
  });
  it('holds a pinned entry to its exact version', () => {
    assert.equal(checkStdio(p, 'npx', ['left-pad@1.3.0'], cwd).ok, true);
    assert.match(refusedRule(checkStdio(p, 'npx', ['left-pad@1.3.1'], cwd))!, /left-pad@1\.3\.1 is not in the policy/);
    assert.match(refusedRule(checkStdio(p, 'npx', ['left-pad'], cwd))!, /not in the policy/);
    assert.equal(checkStdio(p, 'uvx', ['pinned-py==2.0'], cwd).ok, true);
    assert.equal(checkStdio(p, 'uvx', ['pinned_py@2.0'], cwd).ok, true, 'uv names are normalized and take @ as well');
    assert.equal(checkStdio(p, 'uvx', ['pinned-py==2.1'], cwd).ok, false);
  });
  it('strips versions and extras from a uvx package, and refuses --from, --with and index options', () => {
    assert.equal(checkStdio(p, 'uvx', ['mcp-server-time[cli]@1.0', '--local-timezone', 'UTC'], cwd).ok, true);
    assert.equal(checkStdio(p, 'uvx', ['--offline', 'mcp-server-time==1.0'], cwd).ok, true);
    for (const args of [
      ['--from', 'mcp-server-time==1.0', 'mcp-server-time'],
      ['--from', 'mcp-server-time', 'python', '-c', 'import os'],
      ['--from', 'mcp-server-time', '--with', 'evil', 'mcp-server-time'],
      ['--index-url', 'https://evil.example/simple', 'mcp-server-time'],
      ['--from', './dir', 'x'],
    ])
      assert.equal(checkStdio(p, 'uvx', args, cwd).ok, false, args.join(' '));
  });
  it('refuses every runner flag it does not know', () => {
    assert.match(refusedRule(checkStdio(p, 'npx', ['--call', 'rm -rf ~', 'mcp-server-time'], cwd))!, /npx flag --call/);
    assert.match(refusedRule(checkStdio(p, 'npx', ['-c', 'sh'], cwd))!, /npx flag -c/);
    assert.match(refusedRule(checkStdio(p, 'uvx', ['--with', 'evil', 'mcp-server-time'], cwd))!, /uvx flag --with/);
    assert.match(refusedRule(checkStdio(p, 'uvx', ['--python', '/tmp/x', 'mcp-server-time'], cwd))!, /uvx flag --python/);
  });
  it('allows any registry package with "*", still never a path', () => {
    const any = policy({ packages: ['*'] });
    assert.equal(checkStdio(any, 'npx', ['-y', 'whatever@1'], cwd).ok, true);
    assert.equal(checkStdio(any, 'npx', ['-y', '../x'], cwd).ok, false);
  });
  it('refuses a command outside the six, and one of the six the policy leaves out', () => {
    assert.match(refusedRule(checkStdio(p, 'bash', ['-c', 'id'], cwd))!, /not one of npx/);
    assert.match(
      refusedRule(checkStdio(policy({ commands: ['npx'], packages: ['*'] }), 'uvx', ['x'], cwd))!,
      /not in the policy's "commands"/,
    );
  });
});

describe('scripts and folders', () => {
  const p = () => policy({ folders: [{ path: join(root, 'allowed'), write: false }], packages: ['@scope/deno-server'] });
  it('runs a script inside a policy folder', () => {
    const v = checkStdio(p(), 'python3', [join(root, 'allowed', '.', 'server.py'), '--flag-for-the-script'], root);
    assert.deepEqual(v, { ok: true, args: [join(root, 'allowed', 'server.py'), '--flag-for-the-script'] }, 'what was checked is what runs');
    assert.equal(checkStdio(p(), 'node', ['allowed/server.py'], root).ok, true, 'relative to the relay folder');
  });
  it('refuses a script outside, through `..` or through a symlink out of the folder', () => {
    for (const script of [
      join(root, 'outside', 'evil.py'),
      join(root, 'allowed', '..', 'outside', 'evil.py'),
      join(root, 'allowed', 'link.py'),
      join(root, 'allowed', 'missing.py'),
    ])
      assert.match(refusedRule(checkStdio(p(), 'python', [script], root))!, /not a file inside one of the policy's "folders"/, script);
  });
  it('refuses inline code and interpreter flags before the script', () => {
    assert.match(refusedRule(checkStdio(p(), 'python3', ['-c', 'import os'], root))!, /runs inline code/);
    assert.match(refusedRule(checkStdio(p(), 'python3', ['-m', 'http.server'], root))!, /runs inline code/);
    assert.match(refusedRule(checkStdio(p(), 'node', ['-e', 'process.exit()'], root))!, /runs inline code/);
    assert.match(refusedRule(checkStdio(p(), 'node', ['--eval=1'], root))!, /runs inline code/);
    assert.match(refusedRule(checkStdio(p(), 'node', ['--import', 'x', join(root, 'allowed', 'server.py')], root))!, /runs inline code/);
    assert.match(
      refusedRule(checkStdio(p(), 'node', ['--inspect', join(root, 'allowed', 'server.py')], root))!,
      /flag --inspect before the script/,
    );
  });
  it('runs deno only as `deno run` of a folder script or an allowed npm:/jsr: package, without permission flags', () => {
    assert.equal(checkStdio(p(), 'deno', ['run', join(root, 'allowed', 'server.py')], root).ok, true);
    assert.equal(checkStdio(p(), 'deno', ['run', 'npm:@scope/deno-server@1.0.0'], root).ok, true);
    assert.equal(checkStdio(p(), 'deno', ['run', 'jsr:@scope/deno-server'], root).ok, true);
    assert.match(refusedRule(checkStdio(p(), 'deno', ['run', 'npm:@other/x'], root))!, /not in the policy/);
    assert.match(refusedRule(checkStdio(p(), 'deno', ['run', '-A', 'npm:@scope/deno-server'], root))!, /flag -A/);
    assert.match(refusedRule(checkStdio(p(), 'deno', ['eval', '1'], root))!, /deno run/);
    assert.match(refusedRule(checkStdio(p(), 'deno', ['run', 'https://x.example/a.ts'], root))!, /only files, npm: and jsr:/);
  });
});

describe('a server env', () => {
  it('configures a server but may not steer what runs', () => {
    assert.equal(checkEnv(['GITHUB_TOKEN', 'API_KEY', 'MY_PATH']).ok, true);
    for (const key of [
      'PATH',
      'NODE_OPTIONS',
      'LD_PRELOAD',
      'npm_config_registry',
      'NPM_CONFIG_PREFIX',
      'PYTHONSTARTUP',
      'UV_INDEX_URL',
      'BAD-NAME',
    ])
      assert.match((checkEnv(['OK', key]) as { rule: string }).rule ?? '', new RegExp(`env ${key} could change what runs`), key);
  });
});

describe('repositories', () => {
  const p = policy({ repositories: ['acme/server', 'friends/*'] });
  it('matches owner/name and owner/*', () => {
    assert.equal(checkRepository(p, 'acme/server', 'main').ok, true);
    assert.equal(checkRepository(p, 'friends/anything', 'v1.0').ok, true);
    assert.equal(checkRepository(p, 'acme/other', 'main').ok, false);
  });
  it('refuses names and refs git could read as options or paths', () => {
    for (const [repo, ref] of [
      ['-acme/server', 'main'],
      ['.acme/server', 'main'],
      ['acme/..', 'main'],
      ['acme/server/x', 'main'],
      ['acme/server', '--upload-pack=x'],
      ['acme/server', 'a..b'],
      ['acme/server', ''],
    ])
      assert.equal(checkRepository(p, repo!, ref!).ok, false, `${repo} ${ref}`);
  });
});
