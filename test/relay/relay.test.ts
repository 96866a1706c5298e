// The desktop host relay end to end (issue #34): the relay program in a process of its own, signed in
// with a server credential bound to a host, runs @modelcontextprotocol/server-everything over stdio in
// its sandbox for calls made through REST and through /mcp (the official TypeScript and Python MCP
// clients), survives a dropped network and a restarted worker mid-call, and when it is killed mid-call
// the call fails cleanly, exactly once. It refuses what its local policy does not allow, and runs a
// repository it clones from a git server on loopback. The relay reaches the API through a TCP proxy
// the tests cut.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApiKey } from '../helpers/credentials.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { eventually, type Api } from '../helpers/http.js';
import { invokeTool } from '../helpers/invoke.js';
import { mcpServerType } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { createHost, relayCredential, relayStateDir, startRelay, type RelayProcess } from '../helpers/relay-process.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const everythingArgs = ['--no-install', '@modelcontextprotocol/server-everything', 'stdio'];
const policy = {
  commands: ['npx', 'node'],
  packages: ['@modelcontextprotocol/server-everything'],
  repositories: ['acme/*'],
  network: false,
};

let platform: TestPlatform;
let proxy: TcpProxy;
let git: GitServer;
let alice: Api & { userId: string };
let ws: string;
let host: string;
let credential: { client_id: string; client_secret: string };
let relay: RelayProcess;
const stateDir = relayStateDir();
let everything: string;

function launchRelay(): RelayProcess {
  return startRelay({
    url: proxy.url,
    clientId: credential.client_id,
    secret: credential.client_secret,
    policy,
    stateDir,
    gitBase: git.base,
  });
}

async function register(transport: Record<string, unknown>, title = 'server'): Promise<string> {
  const r = await alice.post('/artifacts', {
    title,
    content_type: mcpServerType,
    content: JSON.stringify({ transport: { ...transport, host_id: host } }),
    collection_id: ws,
  });
  assert.equal(r.status, 201, r.text);
  return r.body.id;
}

/** The relay calls recorded for one tool call of the long-running tool (its `duration` tells them apart). */
async function callsFor(duration: number) {
  const calls = await platform.services.relay.calls
    .find({ server_id: everything, 'params.name': 'trigger-long-running-operation', 'params.arguments.duration': duration })
    .toArray();
  const results = await platform.services.relay.results.find({ _id: { $in: calls.map((c) => c._id) } }).toArray();
  return { calls, results };
}

before(async () => {
  platform = await startPlatform({}, { worker: true });
  proxy = await startTcpProxy(Number(new URL(platform.url).port));
  git = await startGitServer();
  alice = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'my machine' })).body.id;
  host = await createHost(alice, ws);
  credential = await relayCredential(alice, host, ws, 'relay-laptop');
  relay = launchRelay();
  await relay.waitFor(/connected as host "laptop"/);
  everything = await register({ type: 'stdio', command: 'npx', args: everythingArgs }, 'everything on my laptop');
});

after(async () => {
  await relay?.kill();
  await proxy?.close();
  await git?.stop();
  await platform?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

describe('a stdio server on a host, through its relay', () => {
  it('answers echo through REST', async () => {
    const result = await invokeTool(alice, everything, 'echo', { message: 'hello from the platform' });
    assert.equal(result.isError ?? false, false, JSON.stringify(result));
    assert.equal(result.content[0].text, 'Echo: hello from the platform');
  });

  it('answers echo through /mcp (the official TypeScript client), and relay_status shows the relay and its server', async () => {
    const key = await createApiKey(alice, ['artifact:read', 'artifact:invoke']);
    const client = new Client({ name: 'relay-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key.key}` } },
      }),
    );
    try {
      const called = await client.callTool({
        name: 'call_server_tool',
        arguments: { server_id: everything, name: 'echo', arguments: { message: 'over MCP' }, wait_seconds: 60 },
      });
      assert.equal(called.isError ?? false, false, JSON.stringify(called));
      const invocation = called.structuredContent as { result: { content: { text: string }[] } };
      assert.equal(invocation.result.content[0]!.text, 'Echo: over MCP');
      const status = await eventually(async () => {
        const r = await client.callTool({ name: 'relay_status', arguments: {} });
        const mine = (r.structuredContent as { hosts: Record<string, any>[] }).hosts.find((h) => h.host_id === host);
        return mine?.servers.some((s: { server_id: string }) => s.server_id === everything) ? mine : undefined;
      });
      assert.equal(status.connected, true);
      assert.equal(status.sandbox, 'bwrap');
      assert.match(status.relay_version, /\S/);
      assert.deepEqual(status.policy.packages, policy.packages);
    } finally {
      await client.close();
    }
  });

  it('answers relay_status and echo to the official Python client', async () => {
    const key = await createApiKey(alice, ['artifact:read', 'artifact:invoke']);
    const python = resolve(process.env.PLATFORM_DEV_DIR ?? '.dev', 'uv', 'mcp-client', 'bin', 'python');
    const out = await new Promise<string>((done, fail) =>
      execFile(
        python,
        ['test/fixtures/python-relay-client.py', `${platform.url}/mcp`, everything],
        { timeout: 120_000, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PLATFORM_API_KEY: key.key } },
        (err, stdout, stderr) => (err ? fail(new Error(`${err.message}\n${stdout}\n${stderr}`)) : done(stdout)),
      ),
    );
    const report = JSON.parse(out.trim().split('\n').pop()!);
    assert.equal(report.status.isError, false, out);
    const mine = report.status.structured.hosts.find((h: { host_id: string }) => h.host_id === host);
    assert.equal(mine.connected, true);
    assert.equal(report.echo.isError, false, out);
    assert.equal(report.echo.structured.result.content[0].text, 'Echo: from python');
  });

  it("runs a transform's tool step on the host, two calls of the same tool in one run each made once", async () => {
    const t = await alice.post('/artifacts', {
      title: 'two echoes',
      content_type: 'application/vnd.platform.transform+json',
      content: JSON.stringify({
        steps: [
          { id: 'first', kind: 'tool', server_id: everything, tool: 'echo', arguments: { message: 'step one: {{input}}' } },
          {
            id: 'second',
            kind: 'tool',
            server_id: everything,
            tool: 'echo',
            arguments: { message: 'step two after {{steps.first.output}}' },
          },
        ],
      }),
      collection_id: ws,
    });
    assert.equal(t.status, 201, t.text);
    const r = await alice.post(`/artifacts/${t.body.id}/invoke`, { input: 'relayed', wait_seconds: 60 });
    assert.ok(r.status === 200 || r.status === 202, r.text);
    const done = await eventually(async () => {
      const s = (await alice.get(`/invocations/${r.body.invocation_id}`)).body;
      return s.status !== 'running' ? s : null;
    }, 90_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.steps));
    assert.match(done.steps[0].output, /Echo: step one: relayed/);
    assert.match(done.steps[1].output, /Echo: step two after Echo: step one: relayed/);
  });

  it("delivers the server's secret env for the call, and no answer or log carries its value", async () => {
    const value = `relay-secret-${randomUUID()}`;
    const secret = (await alice.post('/secrets', { name: 'token', value })).body.id;
    const server = await register(
      { type: 'stdio', command: 'npx', args: everythingArgs, env: { EVERYTHING_TOKEN: { secret_id: secret } } },
      'everything with a secret',
    );
    const result = await invokeTool(alice, server, 'get-env', {});
    const text = JSON.stringify(result);
    assert.match(text, /EVERYTHING_TOKEN/, 'the server saw its env');
    assert.ok(!text.includes(value), 'the value is scrubbed from the answer');
    assert.match(text, /\[redacted\]/);
    assert.ok(!relay.lines.some((l) => l.includes(value)), "not in the relay's log");
    assert.ok(!platform.logs.some((l) => l.includes(value)), "not in the platform's log");
    const stored = JSON.stringify(await platform.services.relay.calls.find({ server_id: server }).toArray());
    assert.ok(!stored.includes(value), 'not in the call record');
    const refused = await alice.post('/artifacts', {
      title: 'steers npm',
      content_type: mcpServerType,
      content: JSON.stringify({
        transport: {
          type: 'stdio',
          command: 'npx',
          args: everythingArgs,
          env: { NPM_CONFIG_REGISTRY: { secret_id: secret } },
          host_id: host,
        },
      }),
      collection_id: ws,
    });
    assert.equal(refused.status, 400, 'an env key that steers the runner is refused at registration');
  });

  it('completes a call whose relay lost the network mid-call: the relay reconnects and its answer is taken once', async () => {
    const duration = 6;
    const pending = invokeTool(alice, everything, 'trigger-long-running-operation', { duration, steps: 6 });
    await relay.waitFor(/trigger-long-running-operation/);
    await proxy.cut(3000);
    const result = await pending;
    assert.equal(result.isError ?? false, false, JSON.stringify(result));
    assert.match(result.content[0].text, /Long running operation completed/);
    assert.ok(
      relay.lines.some((l) => /lost the platform|reconnected/.test(l)),
      'the relay saw the network go',
    );
    const { calls, results } = await callsFor(duration);
    assert.equal(calls.length, 1, 'sent to the relay once');
    assert.deepEqual(
      results.map((r) => r.outcome),
      ['result'],
    );
  });

  it('completes a call whose worker restarted mid-call: the next attempt takes over the call the relay is running', async () => {
    const duration = 7;
    const pending = invokeTool(alice, everything, 'trigger-long-running-operation', { duration, steps: 7 });
    await eventually(async () => (await callsFor(duration)).calls.length === 1, 30_000, 'the call to reach the relay');
    await platform.stopWorker();
    assert.equal((await callsFor(duration)).results.length, 0, 'the worker stopped mid-call, not after it');
    await platform.startWorker();
    const result = await pending;
    assert.equal(result.isError ?? false, false, JSON.stringify(result));
    assert.match(result.content[0].text, /Long running operation completed/);
    const { calls, results } = await callsFor(duration);
    assert.equal(calls.length, 1, 'the tool ran once');
    assert.equal(results.length, 1);
  });

  it('fails a call cleanly, exactly once, when the relay is killed mid-call and started again; the next call works', async () => {
    const duration = 20;
    const pending = invokeTool(alice, everything, 'trigger-long-running-operation', { duration, steps: 20 });
    await eventually(async () => (await callsFor(duration)).calls.length === 1, 20_000, 'the call to be sent');
    // This call's own claim: the relay took it (earlier tests' claims, and their log lines, do not count).
    await eventually(
      async () => {
        const { calls } = await callsFor(duration);
        return (await platform.services.relay.claims.countDocuments({ _id: { $in: calls.map((c) => c._id) } })) > 0;
      },
      20_000,
      "this call's claim",
    );
    assert.equal(await relay.kill('SIGKILL'), 'SIGKILL');
    relay = launchRelay();
    await relay.waitFor(/connected as host "laptop".*failed as lost/);
    const result = await pending;
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent.error, 'relay_lost');
    assert.match(result.content[0].text, /not repeated/);
    const { calls, results } = await callsFor(duration);
    assert.equal(calls.length, 1, 'never sent again');
    assert.deepEqual(
      results.map((r) => r.outcome),
      ['lost'],
    );
    const again = await invokeTool(alice, everything, 'echo', { message: 'after the restart' });
    assert.equal(again.content[0].text, 'Echo: after the restart');
  });

  it("refuses a package outside the relay's local policy: the caller gets a tool error naming it, the person sees it", async () => {
    const other = await register({ type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }, 'memory');
    const result = await invokeTool(alice, other, 'read_graph', {});
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent.error, 'refused');
    assert.match(result.content[0].text, /local policy.*server-memory/s);
    await relay.waitFor(/server-memory/);
    const status = await eventually(async () => {
      const mine = (await alice.get('/relay/hosts')).body.items.find((h: { host_id: string }) => h.host_id === host);
      return mine?.errors.some((e: { message: string }) => /server-memory/.test(e.message)) ? mine : undefined;
    }, 40_000);
    assert.equal(status.connected, true);
  });

  it('clones, installs and runs a repository from a git server on loopback, pinned to the commit its ref had', async () => {
    const commit = git.publish('acme/echo-server', resolve('test/fixtures/relay-repo'), { message: 'one' });
    const server = await register({ type: 'repository', owner_repo: 'acme/echo-server', ref: 'main' }, 'echo from a repository');
    // The first call clones and installs (npm, from the registry, into the relay's own cache): minutes on a slow network.
    const result = await invokeTool(alice, server, 'echo', { message: 'cloned' }, 300_000);
    assert.equal(result.isError ?? false, false, JSON.stringify(result));
    assert.equal(result.content[0].text, 'hello from server.json: cloned');
    const status = await eventually(async () => {
      const mine = (await alice.get('/relay/hosts')).body.items.find((h: { host_id: string }) => h.host_id === host);
      return mine?.servers.find((s: { server_id: string }) => s.server_id === server);
    }, 40_000);
    assert.equal(status.commit, commit);
  });

  it('refuses a repository outside the policy', async () => {
    const server = await register({ type: 'repository', owner_repo: 'elsewhere/tool', ref: 'main' }, 'not allowed');
    const result = await invokeTool(alice, server, 'echo', { message: 'x' });
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent.error, 'refused');
    assert.match(result.content[0].text, /elsewhere\/tool/);
  });
});

describe('stopping the relay', () => {
  it('answers its running call as stopped (SIGTERM), exits 0, and a relay started again serves the host', async () => {
    const pending = invokeTool(alice, everything, 'trigger-long-running-operation', { duration: 30, steps: 30 });
    await relay.waitFor(/duration|trigger-long-running-operation.*\n?/);
    await eventually(async () => (await callsFor(30)).calls.length === 1, 20_000, 'the call to be sent');
    await eventually(
      async () => (await platform.services.relay.claims.countDocuments({ _id: (await callsFor(30)).calls[0]!._id })) === 1,
      20_000,
      'the call to be taken',
    );
    assert.equal(await relay.kill('SIGTERM'), 0);
    const result = await pending;
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /stopped/);
    const { results } = await callsFor(30);
    assert.deepEqual(
      results.map((r) => r.outcome),
      ['failure'],
    );
    relay = launchRelay();
    await relay.waitFor(/connected as host "laptop"/);
  });
});

describe('one relay per host', () => {
  it('a second relay process for the same host takes over, and the first one stops and says why', async () => {
    const first = relay;
    relay = launchRelay();
    await relay.waitFor(/connected as host "laptop"/);
    const code = await first.exited;
    assert.equal(code, 3);
    assert.ok(first.lines.some((l) => /another relay/.test(l)));
    const again = await invokeTool(alice, everything, 'echo', { message: `still served ${randomUUID().slice(0, 4)}` });
    assert.match(again.content[0].text, /^Echo: still served/);
  });
});
