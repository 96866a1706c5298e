// The relay's repository transport (issue #34), through its own modules: a repository served by a real
// `git daemon` on loopback is cloned, its ref pinned to a commit, installed with npm (from the registry,
// inside the sandbox with the network on) and run sandboxed; tools/call and catalog reach it. A branch
// that moves later does not move the pinned server; a repository outside the policy is refused.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { relayCall, type RelayCall, type RelayTransport } from '../../src/relay-protocol/wire.js';
import { CallRunner } from '../../src/relay-host/calls.js';
import { Launcher } from '../../src/relay-host/launch.js';
import { policySchema } from '../../src/relay-host/policy.js';
import { NpxCaches } from '../../src/relay-host/prefetch.js';
import { Repositories } from '../../src/relay-host/repository.js';
import { ServerPool } from '../../src/relay-host/servers.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';

const fixture = resolve('test/fixtures/relay-repo');
const policyPath = '/test/policy.json';
let git: GitServer;
let stateDir: string;
let pool: ServerPool;
let runner: CallRunner;
let first: string;
let second: string;
let revision = 0;

function call(
  op: RelayCall['op'],
  params: Record<string, unknown>,
  transport: RelayTransport,
  env: Record<string, string> = {},
): RelayCall {
  return relayCall.parse({
    id: `call-${++revision}`,
    op,
    server: { id: 'srv-repo', revision, title: 'fixture', transport, env },
    params,
    timeout_ms: 60_000,
    deadline_at: new Date(Date.now() + 300_000).toISOString(),
  });
}

const text = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]!.text;

before(async () => {
  git = await startGitServer();
  first = git.publish('acme/echo-server', fixture, { message: 'one' });
  mkdirSync(resolve('.dev'), { recursive: true });
  // Not under /tmp: the sandbox's /tmp is a tmpfs of its own.
  stateDir = mkdtempSync(join(resolve('.dev'), 'relay-repo-'));
  const policy = policySchema.parse({ repositories: ['acme/*'] });
  const launcher = new Launcher({ policy, policyPath, stateDir, cwd: process.cwd() });
  assert.equal(launcher.unavailable, null);
  const repositories = new Repositories({ stateDir, gitBase: git.base, launcher, log: () => {} });
  pool = new ServerPool(launcher);
  const npx = new NpxCaches({ stateDir, cwd: process.cwd(), launcher, log: () => {} });
  runner = new CallRunner({ policy, policyPath, cwd: process.cwd(), launcher, pool, repositories, npx });
});

after(async () => {
  await pool?.closeAll();
  await git?.stop();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

describe('the repository transport', () => {
  const main: RelayTransport = { type: 'repository', owner_repo: 'acme/echo-server', ref: 'main', args: [] };

  it('clones, pins, installs and runs the repository, with server.json arguments', { timeout: 600_000 }, async () => {
    const out = await runner.run(
      call('tools/call', { name: 'echo', arguments: { message: 'hi' } }, main),
      new AbortController().signal,
      () => {},
    );
    assert.equal(out.outcome, 'result', JSON.stringify(out));
    assert.equal(out.outcome === 'result' && text(out.result), 'hello from server.json: hi');
    const pins = JSON.parse(readFileSync(join(stateDir, 'pins.json'), 'utf8'));
    assert.equal(pins['acme/echo-server@main'], first);
    const clone = join(stateDir, 'repos', 'acme', 'echo-server', first);
    assert.ok(existsSync(join(clone, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json')), 'installed by npm');
    assert.ok(existsSync(`${clone}.installed`));
    assert.deepEqual(
      pool.running().map((s) => [s.server_id, s.commit]),
      [['srv-repo', first]],
    );
  });

  it(
    'runs sandboxed: clone read-only, the relay records hidden, the env delivered and scrubbed from the answer',
    { timeout: 120_000 },
    async () => {
      const token = 'fixture-token-7d3c1a';
      const out = await runner.run(
        call(
          'tools/call',
          { name: 'probe', arguments: {} },
          { ...main, args: ['--peek', join(stateDir, 'pins.json')] },
          { FIXTURE_TOKEN: token },
        ),
        new AbortController().signal,
        () => {},
      );
      assert.equal(out.outcome, 'result', JSON.stringify(out));
      const facts = JSON.parse(out.outcome === 'result' ? text(out.result) : '{}');
      assert.equal(facts.token, '[redacted]', 'the env value reached the server and was scrubbed from the answer');
      assert.match(facts.writeClone, /refused: (EROFS|EACCES)/);
      assert.match(facts.peek, /refused: ENOENT/);
      assert.ok(!JSON.stringify(out).includes(token));
    },
  );

  it('keeps a moved branch on its pinned commit; a commit ref is its own pin', { timeout: 600_000 }, async () => {
    const changed = mkdtempSync(join(resolve('.dev'), 'relay-repo-src-'));
    try {
      cpSync(fixture, changed, { recursive: true });
      writeFileSync(
        join(changed, 'server.mjs'),
        readFileSync(join(fixture, 'server.mjs'), 'utf8').replace("VERSION = 'one'", "VERSION = 'two'"),
      );
      second = git.publish('acme/echo-server', changed, { message: 'two' });
    } finally {
      rmSync(changed, { recursive: true, force: true });
    }
    const probe = async (transport: RelayTransport) => {
      const out = await runner.run(call('tools/call', { name: 'probe', arguments: {} }, transport), new AbortController().signal, () => {});
      assert.equal(out.outcome, 'result', JSON.stringify(out));
      return JSON.parse(out.outcome === 'result' ? text(out.result) : '{}').version;
    };
    assert.equal(await probe(main), 'one', 'main moved, the pin did not');
    assert.equal(await probe({ ...main, ref: second }), 'two');
    assert.equal(JSON.parse(readFileSync(join(stateDir, 'pins.json'), 'utf8'))['acme/echo-server@main'], first);
  });

  it('lists the server for the catalog op', { timeout: 120_000 }, async () => {
    const out = await runner.run(call('catalog', {}, main), new AbortController().signal, () => {});
    assert.equal(out.outcome, 'result', JSON.stringify(out));
    const listing = out.outcome === 'result' ? out.result : {};
    assert.deepEqual((listing.server_info as { name: string }).name, 'relay-fixture-server');
    assert.deepEqual((listing.tools as { name: string }[]).map((t) => t.name).sort(), ['echo', 'probe']);
  });

  it(
    'refuses a repository outside the policy, and fails a ref that names nothing as an install failure',
    { timeout: 120_000 },
    async () => {
      const refused = await runner.run(
        call('catalog', {}, { ...main, owner_repo: 'evil/echo-server' }),
        new AbortController().signal,
        () => {},
      );
      assert.equal(refused.outcome, 'failure');
      assert.equal(refused.outcome === 'failure' && refused.failure.kind, 'refused');
      assert.match(
        refused.outcome === 'failure' ? refused.failure.message : '',
        /\/test\/policy\.json.*evil\/echo-server is not in the policy's "repositories"/,
      );
      const missing = await runner.run(call('catalog', {}, { ...main, ref: 'no-such-branch' }), new AbortController().signal, () => {});
      assert.equal(missing.outcome === 'failure' && missing.failure.kind, 'install', JSON.stringify(missing));
      assert.match(missing.outcome === 'failure' ? missing.failure.message : '', /no-such-branch names no commit/);
    },
  );

  it('fetches an npx package once with the network on, then runs it with the network off', { timeout: 600_000 }, async () => {
    // A folder outside any npm project, so nothing is found locally: npx must use what the relay fetched.
    const cwd = mkdtempSync(join(tmpdir(), 'relay-npx-'));
    chmodSync(cwd, 0o755); // a relay run as root (CI) starts servers as another user, who must be able to enter it
    const policy = policySchema.parse({ packages: ['@modelcontextprotocol/server-everything'] });
    const launcher = new Launcher({ policy, policyPath, stateDir, cwd });
    const npxPool = new ServerPool(launcher);
    try {
      const npx = new NpxCaches({ stateDir, cwd, launcher, log: () => {} });
      const repositories = new Repositories({ stateDir, gitBase: git.base, launcher, log: () => {} });
      const npxRunner = new CallRunner({ policy, policyPath, cwd, launcher, pool: npxPool, repositories, npx });
      const transport: RelayTransport = { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything', 'stdio'] };
      const out = await npxRunner.run(
        call('tools/call', { name: 'echo', arguments: { message: 'fetched' } }, transport),
        new AbortController().signal,
        () => {},
      );
      assert.equal(out.outcome === 'result' ? text(out.result) : JSON.stringify(out), 'Echo: fetched');
      const probe = { type: 'stdio' as const, command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything', 'stdio'] };
      const env = await npxRunner.run(
        call('tools/call', { name: 'get-env', arguments: {} }, probe),
        new AbortController().signal,
        () => {},
      );
      assert.match(env.outcome === 'result' ? text(env.result) : '', /"npm_config_prefer_offline": "true"/);
    } finally {
      await npxPool.closeAll();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
