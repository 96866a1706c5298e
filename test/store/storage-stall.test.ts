// Never hang (issue 17): the storage engine stops answering (its process paused with SIGSTOP), and
// every request still ends within the storage deadline: 503 storage-unavailable on REST and /mcp, an isError
// result from an MCP tool, /readyz 503 naming mongodb. After SIGCONT the same requests succeed again.
// The engine is this file's own, so pausing it stalls no other test file. A sign-out during the stall
// still clears the browser's cookie before answering 503.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminEmail, adminPassword, startPlatform, type TestPlatform } from '../helpers/platform.js';
import { startPrivateEngine, type PrivateEngine } from '../helpers/private-engine.js';
import type { Api } from '../helpers/http.js';
import { Browser, formFields, sessionCookie } from '../helpers/oauth-browser.js';
import { callPlatformTool } from '../../src/mcp-server/server.js';
import { tools } from '../../src/mcp-server/tools.js';
import type { OperationContext } from '../../src/operations/services.js';
import { userPrincipal } from '../../src/identity/principal.js';

/** The storage deadline this platform runs with (STORAGE_TIMEOUT_MS). */
const deadlineMs = 2000;
/** What "within the deadline" allows on top: the HTTP round trip and a loaded CI machine. */
const marginMs = 1500;

let engine: PrivateEngine;
let platform: TestPlatform;
let admin: Api;
let workspace: string;
let artifact: string;
let adminId: string;
let paused = false;

const pause = () => {
  engine.pause();
  paused = true;
};
const resume = () => {
  if (paused) engine.resume();
  paused = false;
};

interface Timed {
  status: number;
  ms: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** One request with a client-side timeout far beyond the deadline, so a hang fails the test instead of stalling it. */
async function timed(
  method: string,
  path: string,
  body?: unknown,
  token = admin.token,
  extraHeaders: Record<string, string> = {},
): Promise<Timed> {
  const started = Date.now();
  const headers: Record<string, string> = {
    ...extraHeaders,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
  };
  const res = await fetch(platform.url + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const ms = Date.now() - started;
  const json =
    text.startsWith('event:') || text.includes('\ndata:')
      ? text
          .split('\n')
          .find((l) => l.startsWith('data:'))
          ?.slice(5)
      : text;
  let parsed: unknown;
  try {
    parsed = json ? JSON.parse(json) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, ms, headers: res.headers, body: parsed };
}

const requests = () => ({
  'GET /workspaces': () => timed('GET', '/workspaces'),
  'GET /artifacts/{id}': () => timed('GET', `/artifacts/${artifact}`),
  'POST /artifacts': () =>
    timed('POST', '/artifacts', { title: 'during the stall', content_type: 'text/markdown', content: 'x', collection_id: workspace }),
  'PATCH /artifacts/{id}': () => timed('PATCH', `/artifacts/${artifact}`, { title: 'edited during the stall' }),
  'POST /auth/login': () => timed('POST', '/auth/login', { email: adminEmail, password: adminPassword }, undefined),
});

before(async () => {
  engine = await startPrivateEngine();
  platform = await startPlatform({ STORE_URI: engine.uri, STORAGE_TIMEOUT_MS: String(deadlineMs) }, { worker: false });
  admin = await platform.admin();
  workspace = (await admin.post('/workspaces', { name: 'stall' })).body.id;
  const created = await admin.post('/artifacts', {
    title: 'before the stall',
    content_type: 'text/markdown',
    content: 'hello',
    collection_id: workspace,
  });
  assert.equal(created.status, 201, created.text);
  artifact = created.body.id;
  adminId = (await platform.services.users.findByEmail(adminEmail))!._id;
});

after(async () => {
  resume();
  await platform?.close();
  await engine?.stop();
});

describe('storage that stops answering (engine paused with SIGSTOP)', () => {
  it('answers 503 storage-unavailable within the deadline (REST and /mcp), /readyz 503; recovers after SIGCONT', async () => {
    const before = await timed('GET', '/readyz', undefined, undefined);
    assert.equal(before.status, 200);

    pause();
    const stalled = Object.entries(requests());
    const started = Date.now();
    const [readyz, mcp, ...answers] = await Promise.all([
      timed('GET', '/readyz', undefined, undefined),
      timed(
        'POST',
        '/mcp',
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_artifact', arguments: { id: artifact } } },
        admin.token,
        { accept: 'application/json, text/event-stream' },
      ),
      ...stalled.map(([, send]) => send()),
    ]);
    const all = Date.now() - started;
    const lines = stalled.map(([name], i) => `${name}: ${answers[i]!.status} in ${answers[i]!.ms} ms`);
    console.log(
      `[stall] deadline ${deadlineMs} ms; ${lines.join('; ')}; /readyz ${readyz.status} in ${readyz.ms} ms; MCP get_artifact ${mcp.status} (isError ${mcp.body?.result?.isError}) in ${mcp.ms} ms; all answered in ${all} ms`,
    );

    for (const [i, [name]] of stalled.entries()) {
      const a = answers[i]!;
      assert.equal(a.status, 503, `${name}: ${JSON.stringify(a.body)}`);
      assert.equal(a.headers.get('content-type')?.split(';')[0], 'application/problem+json', name);
      assert.equal(a.body.type, 'urn:platform:problem:storage-unavailable', name);
      assert.equal(a.headers.get('retry-after'), '1', name);
      assert.ok(a.ms < deadlineMs + marginMs, `${name} answered in ${a.ms} ms, beyond the ${deadlineMs} ms deadline`);
    }
    assert.equal(readyz.status, 503);
    assert.deepEqual(readyz.body.checks, { mongodb: 'down', temporal: 'up' });
    assert.ok(readyz.ms < deadlineMs + marginMs, `/readyz took ${readyz.ms} ms`);
    // An MCP tool call ends as a tool result with isError (or, when authentication itself needed storage, the same 503 problem).
    assert.ok(mcp.ms < deadlineMs + marginMs, `MCP tools/call took ${mcp.ms} ms`);
    if (mcp.status === 200) {
      assert.equal(mcp.body.result.isError, true, JSON.stringify(mcp.body));
      assert.equal(mcp.body.result._meta['platform/problem'].type, 'urn:platform:problem:storage-unavailable', JSON.stringify(mcp.body));
    } else {
      assert.equal(mcp.status, 503, JSON.stringify(mcp.body));
      assert.equal(mcp.body.type, 'urn:platform:problem:storage-unavailable');
    }

    // Still paused: a second round is just as bounded (nothing queued up behind the first).
    const again = await timed('GET', `/artifacts/${artifact}`);
    assert.equal(again.status, 503);
    assert.ok(again.ms < deadlineMs + marginMs, `second request took ${again.ms} ms`);

    resume();
    const resumed = Date.now();
    let recovered: Record<string, number> | undefined;
    while (!recovered && Date.now() - resumed < 30_000) {
      const round = await Promise.all(Object.values(requests()).map((send) => send()));
      const ready = await timed('GET', '/readyz', undefined, undefined);
      if (round.every((r) => r.status < 300) && ready.status === 200)
        recovered = Object.fromEntries(Object.keys(requests()).map((name, i) => [name, round[i]!.status]));
      else await new Promise((r) => setTimeout(r, 250));
    }
    console.log(`[stall] recovered ${Date.now() - resumed} ms after SIGCONT: ${JSON.stringify(recovered)}`);
    assert.ok(recovered, 'requests succeed again within 30 s of SIGCONT');
    const read = await admin.get(`/artifacts/${artifact}`);
    assert.equal(read.status, 200);
  });
});

describe('an MCP tool whose storage does not answer', () => {
  it('ends as an isError tool result typed storage-unavailable (status 503), like REST', async () => {
    // Over HTTP the request's authentication reads storage first and answers the 503 problem itself
    // (above); here the tool's own storage call is the one that stalls.
    pause();
    const tool = tools.find((t) => t.name === 'get_artifact')!;
    const ctx = {
      services: platform.services,
      state: { requestId: 'stall-test', channel: 'mcp', principal: userPrincipal(adminId, true) },
    } satisfies OperationContext;
    const started = Date.now();
    const { status, result } = await callPlatformTool(ctx, tool, { id: artifact });
    const ms = Date.now() - started;
    resume();
    assert.equal(status, 503, JSON.stringify(result));
    assert.equal(result.isError, true);
    assert.equal((result._meta?.['platform/problem'] as { type: string }).type, 'urn:platform:problem:storage-unavailable');
    assert.ok(ms < deadlineMs + marginMs, `the tool answered in ${ms} ms`);
  });
});

describe('signing out while storage does not answer', () => {
  it('clears the session cookie anyway, then answers 503 storage-unavailable (the end could not be stored)', async () => {
    const browser = new Browser(platform.url);
    const login = await browser.get('/oauth/consents');
    const signedIn = await browser.post('/oauth/login', {
      ...formFields(login.html, '/oauth/login'),
      email: adminEmail,
      password: adminPassword,
    });
    assert.equal(signedIn.status, 303, signedIn.html);
    const cookie = sessionCookie(signedIn.headers)!;

    pause();
    const res = await fetch(`${platform.url}/oauth/sign-out`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    });
    const body = await res.text();
    resume();
    assert.equal(res.status, 503, body);
    assert.equal((JSON.parse(body) as { type: string }).type, 'urn:platform:problem:storage-unavailable');
    assert.ok(
      res.headers.getSetCookie().some((c) => c.startsWith('platform_session=;') && /max-age=0/i.test(c)),
      `the browser's cookie is cleared: ${JSON.stringify(res.headers.getSetCookie())}`,
    );
  });
});
