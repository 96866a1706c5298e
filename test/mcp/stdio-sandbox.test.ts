// Every stdio MCP server runs sandboxed, even one from the operators' catalog: a server that tries to
// read the worker's environment, write outside its sandbox, fork or allocate past its limits, or reach
// the worker's services fails at each, while ordinary catalog servers work (test/mcp-client.test.ts
// calls server-everything and mcp-server-time through the same sandbox). The hostile server is
// test/fixtures/hostile-server.mjs, added to the catalog by test/fixtures/stdio-catalog.json.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Api } from '../helpers/http.js';
import { mcpServerType, registerServer } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let ws: string;
let hostile: string;
const token = `probe-${randomBytes(12).toString('hex')}`;

async function call(name: string, args: Record<string, unknown> = {}) {
  const r = await alice.post(`/artifacts/${hostile}/invoke`, { name, arguments: args });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.result.isError ?? false, false, JSON.stringify(r.body.result));
  return r.body.result.structuredContent;
}

before(async () => {
  // A marker in the worker's own environment (the worker runs in this process): the server must not find it.
  process.env.SANDBOX_TEST_MARKER = `marker-${randomBytes(8).toString('hex')}`;
  platform = await startPlatform({ ALLOW_STDIO_MCP_SERVERS: 'true' }, { worker: true });
  alice = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'sandbox' })).body.id;
  const secret = (await alice.post('/secrets', { name: 'probe', value: token })).body.id;
  hostile = await registerServer(
    alice,
    ws,
    { transport: { type: 'stdio', catalog_entry: 'hostile', env: { PROBE_TOKEN: { secret_id: secret } } } },
    'hostile',
  );
});
after(async () => {
  await platform?.close();
});

describe('a sandboxed stdio server', () => {
  it('runs as an unprivileged user, with only the sandbox environment and its declared secret, seeing only its own processes', async () => {
    const who = await call('identity');
    assert.notEqual(who.uid, 0, 'never root');
    assert.notEqual(who.gid, 0);
    assert.deepEqual(
      Object.keys(who.env).sort(),
      ['HOME', 'LANG', 'LOGNAME', 'PATH', 'PROBE_TOKEN', 'PWD', 'SHELL', 'TERM', 'TMPDIR', 'USER'].sort(),
    );
    assert.equal(who.env.HOME, '/tmp');
    assert.ok(who.pids.length <= 3, `its own PID namespace: it sees ${who.pids.join(', ')}`);
    assert.ok(!who.pids.includes(process.pid) || process.pid <= 3, 'the worker is not among them');
  });

  it("cannot read the worker's environment, nor any other process's", async () => {
    const { readable, leaked } = await call('read_environ', { marker: process.env.SANDBOX_TEST_MARKER });
    assert.deepEqual(leaked, []);
    // It may read its own environment only (its PID in its namespace), never pid 1 (bubblewrap, root-owned).
    assert.ok(
      readable.every((pid: number) => pid !== 1),
      JSON.stringify(readable),
    );
    for (const path of [`/proc/${process.pid}/environ`, '/proc/1/environ']) {
      const r = await call('read_file', { path });
      assert.ok(!r.ok || !r.text.includes(process.env.SANDBOX_TEST_MARKER!), path);
    }
  });

  it("cannot read the worker's dev state (master key, engines' data)", async () => {
    const r = await call('read_file', { path: `${platform.config.PLATFORM_DEV_DIR}/master.key` });
    assert.equal(r.ok, false);
  });

  it('writes only into its private /tmp', async () => {
    const mine = `sandbox-${randomBytes(4).toString('hex')}`;
    const outside = [`${process.cwd()}/${mine}`, `/etc/${mine}`, `/var/tmp/${mine}`, `${platform.config.PLATFORM_DEV_DIR}/${mine}`];
    const { results } = await call('write_files', { paths: [...outside, `/tmp/${mine}`] });
    for (const path of outside) {
      assert.notEqual(results[path], 'written', path);
      assert.equal(existsSync(path), false, `${path} does not exist on the host`);
    }
    assert.equal(results[`/tmp/${mine}`], 'written');
    assert.equal(existsSync(`/tmp/${mine}`), false, "the sandbox's /tmp is its own, not the host's");
  });

  it('cannot fork past its process limit', async () => {
    const { started, error } = await call('fork_many', { count: 200 });
    assert.ok(started < 40, `started ${started}`);
    assert.equal(error, 'EAGAIN');
    // The server survives and answers again.
    assert.notEqual((await call('identity')).uid, 0);
  });

  it('cannot allocate past its memory limit', async () => {
    assert.equal((await call('allocate', { mib: 16 })).ok, true);
    assert.equal((await call('allocate', { mib: 3072 })).ok, false);
  });

  it("cannot reach the worker's services: no network unless its catalog entry allows it", async () => {
    const store = new URL(platform.config.storeUri);
    const apiPort = Number(new URL(platform.url).port);
    const ports = [apiPort];
    if (store.protocol.startsWith('postgres')) {
      // The embedded store listens on a unix socket only, in the test's state folder.
      const path = `${store.searchParams.get('host')}/.s.PGSQL.${store.searchParams.get('port') ?? '5432'}`;
      const { outcome } = await call('connect', { path });
      assert.notEqual(outcome, 'connected', path);
    } else ports.push(Number(store.port));
    for (const port of ports) {
      const { outcome } = await call('connect', { host: '127.0.0.1', port });
      assert.notEqual(outcome, 'connected', `port ${port}`);
    }
  });
});

describe('when the sandbox cannot start', () => {
  it('keeps stdio off with a clear reason, and registers no stdio server', async () => {
    const broken = await startPlatform({ ALLOW_STDIO_MCP_SERVERS: 'true', STDIO_SANDBOX_BWRAP: '/nonexistent/bwrap' }, { worker: false });
    try {
      const bob = await broken.newUser();
      const listed = await bob.get('/mcp/stdio-catalog');
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.body.available, false);
      assert.match(listed.body.reason, /sandbox cannot start.*\/nonexistent\/bwrap/);
      const home = (await bob.post('/workspaces', { name: 'h' })).body.id;
      const r = await bob.post('/artifacts', {
        title: 's',
        content_type: mcpServerType,
        content: JSON.stringify({ transport: { type: 'stdio', catalog_entry: 'server-everything' } }),
        collection_id: home,
      });
      assert.equal(r.status, 400, r.text);
      assert.match(r.body.detail, /sandbox cannot start/);
      assert.equal((await bob.get(`/artifacts?collection_id=${home}`)).body.items.length, 0);
    } finally {
      await broken.close();
    }
  });

  it('lists the catalog where it can: entries, parameters and the secrets each takes', async () => {
    const listed = await alice.get('/mcp/stdio-catalog');
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.available, true);
    const ids = listed.body.entries.map((e: { id: string }) => e.id);
    for (const id of ['server-everything', 'mcp-server-time', 'note-type-server', 'agent-server']) assert.ok(ids.includes(id), id);
    const time = listed.body.entries.find((e: { id: string }) => e.id === 'mcp-server-time');
    assert.deepEqual(time.package, { name: 'mcp-server-time', version: '2026.10.19' });
    assert.equal(time.params.local_timezone.required, false);
    assert.equal(time.network, false);
  });
});
