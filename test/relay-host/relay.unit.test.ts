// The relay process against the protocol of src/relay-protocol/wire.ts (issue #34). The platform side
// here is a protocol peer that checks every request the relay sends against the wire schemas and answers
// as the platform's routes do (the end-to-end test drives the real platform); the relay is the real
// program (bin/platform-relay.mjs), running server-everything from this checkout under bubblewrap.
// Checked: sign-in and refresh on a 401, hello, calls run and answered once, env values scrubbed,
// policy refusals reported, a running call surviving a platform outage, cancellation, exit 3 when
// another relay takes over the host, exit 0 on SIGTERM with the running call answered.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  helloRequest,
  pollRequest,
  resultRequest,
  type HelloRequest,
  type PollRequest,
  type RelayCall,
  type ResultRequest,
} from '../../src/relay-protocol/wire.js';

const clientId = 'relay-client-1';
const secret = 'relay-secret-3f9a7c';
const problemBase = 'https://platform.test/problems';

class ProtocolPeer {
  server!: Server;
  url = '';
  tokens: string[] = [];
  hellos: HelloRequest[] = [];
  polls: PollRequest[] = [];
  results = new Map<string, ResultRequest[]>();
  queue: RelayCall[] = [];
  cancels: string[] = [];
  /** Until then, polls and results answer 503 (the platform is away). */
  outageUntil = 0;
  rejectNextWith401 = false;
  replaceSession = false;
  forgetSession = false;
  badRequests: string[] = [];
  private waiters: (() => void)[] = [];

  async start() {
    this.server = createServer((req, res) => void this.handle(req, res).catch((e) => this.send(res, 500, { detail: String(e) })));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  private send(res: ServerResponse, status: number, body: unknown, type = 'application/json') {
    res.writeHead(status, { 'content-type': type });
    res.end(JSON.stringify(body));
  }

  private changed() {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves when `check` holds, re-checked after each request; rejects after `ms`. */
  async until<T>(check: () => T | undefined | false, ms = 30_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = check();
      if (v) return v;
      if (Date.now() > end) throw new Error('timed out waiting');
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    let raw = '';
    for await (const c of req) raw += c;
    const path = req.url ?? '';
    if (path === '/auth/token') {
      const form = new URLSearchParams(raw);
      if (req.headers['content-type'] !== 'application/x-www-form-urlencoded' || form.get('grant_type') !== 'client_credentials')
        this.badRequests.push(`token: ${raw}`);
      if (form.get('client_id') !== clientId || form.get('client_secret') !== secret)
        return this.send(res, 401, { error: 'invalid_client' });
      const token = `tok-${this.tokens.length + 1}`;
      this.tokens.push(token);
      return this.send(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
    }
    if (req.headers.authorization !== `Bearer ${this.tokens.at(-1)}` || this.rejectNextWith401) {
      this.rejectNextWith401 = false;
      return this.send(res, 401, { type: `${problemBase}/unauthorized`, title: 'Unauthorized' });
    }
    const body = JSON.parse(raw) as unknown;
    if (path === '/relay/hello') {
      const parsed = helloRequest.safeParse(body);
      if (!parsed.success) return this.bad(res, path, parsed.error.message);
      this.hellos.push(parsed.data);
      this.changed();
      return this.send(res, 200, { host_id: 'host-1', host_title: 'test host', poll_wait_ms: 300, lost_calls: 0 });
    }
    if (Date.now() < this.outageUntil) return this.send(res, 503, { title: 'away' });
    if (path === '/relay/poll') {
      const parsed = pollRequest.safeParse(body);
      if (!parsed.success) return this.bad(res, path, parsed.error.message);
      this.polls.push(parsed.data);
      this.changed();
      if (this.forgetSession) {
        this.forgetSession = false;
        return this.send(res, 404, { type: `${problemBase}/relay-session-unknown`, title: 'No such session' }, 'application/problem+json');
      }
      if (this.replaceSession)
        return this.send(
          res,
          409,
          { type: `${problemBase}/relay-session-replaced`, title: 'Another session took over' },
          'application/problem+json',
        );
      if (!this.queue.length && !this.cancels.length) await new Promise((r) => setTimeout(r, 300));
      return this.send(res, 200, { calls: this.queue.splice(0), cancel: this.cancels.splice(0) });
    }
    const m = /^\/relay\/calls\/([^/]+)\/result$/.exec(path);
    if (m) {
      const parsed = resultRequest.safeParse(body);
      if (!parsed.success) return this.bad(res, path, parsed.error.message);
      const id = decodeURIComponent(m[1]!);
      const first = !this.results.has(id);
      this.results.set(id, [...(this.results.get(id) ?? []), parsed.data]);
      this.changed();
      return first ? this.send(res, 204, {}) : this.send(res, 409, { type: `${problemBase}/relay-call-decided` });
    }
    this.send(res, 404, {});
  }

  private bad(res: ServerResponse, path: string, why: string) {
    this.badRequests.push(`${path}: ${why}`);
    this.send(res, 400, { detail: why });
  }
}

let peer: ProtocolPeer;
let dir: string;
let policyPath: string;
let relay: ChildProcess;
let stderr = '';
let ids = 0;

const everything = { type: 'stdio' as const, command: 'npx', args: ['--no-install', '@modelcontextprotocol/server-everything', 'stdio'] };

function call(
  params: Record<string, unknown>,
  opts: { env?: Record<string, string>; transport?: RelayCall['server']['transport'] } = {},
): RelayCall {
  return {
    id: `call-${++ids}`,
    op: 'tools/call',
    server: { id: 'srv-everything', revision: 1, title: 'everything', transport: opts.transport ?? everything, env: opts.env ?? {} },
    params,
    timeout_ms: 60_000,
    deadline_at: new Date(Date.now() + 120_000).toISOString(),
  };
}

function startRelay(): { child: ChildProcess; exit: Promise<number | null> } {
  const child = spawn(process.execPath, ['bin/platform-relay.mjs', '--policy', policyPath, '--state-dir', join(dir, 'state')], {
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME!,
      PLATFORM_URL: peer.url,
      PLATFORM_RELAY_CLIENT_ID: clientId,
      PLATFORM_RELAY_CLIENT_SECRET: secret,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (c: Buffer) => void (stderr += c.toString('utf8')));
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, exit };
}

async function answer(c: RelayCall) {
  peer.queue.push(c);
  const [first] = await peer.until(() => peer.results.get(c.id), 60_000);
  return first!;
}

const text = (r: ResultRequest) =>
  r.outcome === 'result' ? (r.result.content as { text: string }[])[0]!.text : `failure: ${JSON.stringify(r)}`;

before(async () => {
  peer = new ProtocolPeer();
  await peer.start();
  mkdirSync(resolve('.dev'), { recursive: true });
  dir = mkdtempSync(join(resolve('.dev'), 'relay-loop-'));
  policyPath = join(dir, 'policy.json');
  writeFileSync(policyPath, JSON.stringify({ packages: ['@modelcontextprotocol/server-everything'] }));
});

after(async () => {
  if (relay && relay.exitCode === null) relay.kill('SIGKILL');
  peer?.server.close();
  peer?.server.closeAllConnections();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the relay process', { timeout: 240_000 }, () => {
  let exit: Promise<number | null>;

  it('signs in with client_credentials and says hello with its sandbox and policy', async () => {
    ({ child: relay, exit } = startRelay());
    const hello = await peer.until(() => peer.hellos[0]);
    assert.equal(hello.sandbox, 'bwrap');
    assert.deepEqual(hello.policy.packages, ['@modelcontextprotocol/server-everything']);
    assert.equal(peer.tokens.length, 1);
    await peer.until(() => peer.polls.length >= 1 && peer.polls[0]!.session === hello.session);
  });

  it('runs a call on the sandboxed server and answers once, env delivered and scrubbed', async () => {
    const echoed = await answer(call({ name: 'echo', arguments: { message: 'hi' } }));
    assert.equal(text(echoed), 'Echo: hi');
    const value = 'sk-relay-test-91b2c3d4';
    const env = await answer(call({ name: 'get-env', arguments: {} }, { env: { RELAY_TEST_SECRET: value } }));
    assert.equal(env.outcome, 'result', text(env));
    assert.match(text(env), /RELAY_TEST_SECRET/);
    assert.ok(!JSON.stringify(env).includes(value), 'the value never leaves the relay');
    assert.ok(!stderr.includes(value));
    assert.match(text(env), /\[redacted\]/);
  });

  it('lists the server for the catalog op and reads a resource it lists', async () => {
    const listing = await answer({ ...call({}), op: 'catalog' });
    assert.equal(listing.outcome, 'result', JSON.stringify(listing));
    const result = listing.outcome === 'result' ? listing.result : {};
    assert.equal((result.server_info as { name: string }).name, 'mcp-servers/everything');
    assert.ok((result.tools as { name: string }[]).some((t) => t.name === 'echo'));
    const uri = (result.resources as { uri: string }[])[0]!.uri;
    const read = await answer({ ...call({ uri }), op: 'resources/read' });
    assert.equal(read.outcome === 'result' && (read.result.contents as { uri: string }[])[0]!.uri, uri, JSON.stringify(read));
  });

  it('refuses what the policy does not allow, tells the person and reports it in the next polls', async () => {
    const refused = await answer(
      call(
        { name: 'echo', arguments: { message: 'x' } },
        { transport: { type: 'stdio', command: 'npx', args: ['-y', 'some-other-server'] } },
      ),
    );
    assert.equal(refused.outcome === 'failure' && refused.failure.kind, 'refused');
    assert.match(
      refused.outcome === 'failure' ? refused.failure.message : '',
      new RegExp(`${policyPath}.*some-other-server is not in the policy`),
    );
    assert.match(stderr, /some-other-server is not in the policy/);
    const poll = await peer.until(() => peer.polls.slice(-1).find((p) => p.errors.some((e) => /some-other-server/.test(e.message))));
    assert.equal(poll.servers[0]?.server_id, 'srv-everything');
  });

  it('keeps a running call running through a platform outage and answers it once the platform is back', async () => {
    const long = call({ name: 'trigger-long-running-operation', arguments: { duration: 3, steps: 3 } });
    peer.queue.push(long);
    const progressed = await peer.until(() => peer.polls.find((p) => p.running.some((r) => r.id === long.id && (r.progress ?? 0) >= 1)));
    assert.equal(progressed.running.find((r) => r.id === long.id)!.total, 3);
    peer.outageUntil = Date.now() + 4000;
    const results = await peer.until(() => peer.results.get(long.id), 60_000);
    assert.ok(Date.now() >= peer.outageUntil, 'answered after the outage');
    assert.match(text(results[0]!), /Long running operation completed/);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(peer.results.get(long.id)!.length, 1);
    assert.equal(peer.hellos.length, 1, 'the same session throughout');
    assert.match(stderr, /lost the platform .* retrying in \d+ ms/);
  });

  it('stops a call the platform cancels and never answers it', async () => {
    const long = call({ name: 'trigger-long-running-operation', arguments: { duration: 3, steps: 3 } });
    peer.queue.push(long);
    await peer.until(() => peer.polls.find((p) => p.running.some((r) => r.id === long.id)));
    peer.cancels.push(long.id);
    await peer.until(() => peer.polls.slice(-1).find((p) => !p.running.some((r) => r.id === long.id)));
    await new Promise((r) => setTimeout(r, 4000));
    assert.equal(peer.results.get(long.id), undefined);
  });

  it('signs in again on a 401', async () => {
    const before = peer.tokens.length;
    peer.rejectNextWith401 = true;
    await peer.until(() => peer.tokens.length > before);
    const echoed = await answer(call({ name: 'echo', arguments: { message: 'again' } }));
    assert.equal(text(echoed), 'Echo: again');
  });

  it('says hello again, on the same session and with its calls running, when the platform forgot the session', async () => {
    const long = call({ name: 'trigger-long-running-operation', arguments: { duration: 2, steps: 2 } });
    peer.queue.push(long);
    await peer.until(() => peer.polls.find((p) => p.running.some((r) => r.id === long.id)));
    peer.forgetSession = true;
    await peer.until(() => peer.hellos.length === 2);
    assert.equal(peer.hellos[1]!.session, peer.hellos[0]!.session);
    assert.match(text((await peer.until(() => peer.results.get(long.id)))[0]!), /Long running operation completed/);
  });

  it('exits 3 when another relay of the host takes over', async () => {
    peer.replaceSession = true;
    assert.equal(await exit, 3);
    assert.match(stderr, /another relay for this host has started/);
    assert.deepEqual(peer.badRequests, []);
  });

  it('exits 0 on SIGTERM, answering its running call as cancelled', async () => {
    peer.replaceSession = false;
    const second = startRelay();
    relay = second.child;
    await peer.until(() => peer.hellos.length === 3);
    const long = call({ name: 'trigger-long-running-operation', arguments: { duration: 20, steps: 20 } });
    peer.queue.push(long);
    await peer.until(() => peer.polls.find((p) => p.session === peer.hellos[2]!.session && p.running.some((r) => r.id === long.id)));
    relay.kill('SIGTERM');
    assert.equal(await second.exit, 0);
    const [answered] = peer.results.get(long.id) ?? [];
    assert.equal(answered?.outcome === 'failure' && answered.failure.kind, 'cancelled');
    assert.deepEqual(peer.badRequests, []);
  });
});
