// MCP tasks (the io.modelcontextprotocol/tasks extension, revision 2026-07-28) through the official
// Python SDK (`mcp` 2.3, test/fixtures/python-task-client.py) against the running platform and its
// worker: commit_workspace answers with a task whose id is the commit workflow's business id; the
// client sees `input_required` with a URL elicitation to the console's approval page; a person
// approves there in headless Chromium; the client's tasks/get returns the committed result. The same
// with the API process restarted between the tools/call and the tasks/get. A task is its owner's
// alone; tasks/cancel withdraws a commit; a client that did not declare the extension gets no task.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { apiProcess, type ApiProcess } from '../helpers/api-process.js';
import { launchBrowser } from '../helpers/browser.js';
import { consolePage, draft, newPerson, signIn, type Person } from '../helpers/console.js';
import { createApiKey } from '../helpers/credentials.js';
import { eventually } from '../helpers/http.js';
import { envelope, postMcp } from '../helpers/mcp-raw.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const python = resolve(process.env.PLATFORM_DEV_DIR ?? '.dev', 'uv', 'mcp-client', 'bin', 'python');
const script = resolve('test/fixtures/python-task-client.py');

type Line = { event: string; task?: Record<string, any>; result?: Record<string, any>; message?: string; [k: string]: unknown };

/** The Python client as a process: its JSON lines as they come, and its end. */
function client(args: string[], token: string) {
  const child = spawn(python, [script, ...args], { env: { ...process.env, PLATFORM_TOKEN: token }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Line[] = [];
  const waiters: { match: (l: Line) => boolean; resolve: (l: Line) => void }[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  createInterface({ input: child.stdout }).on('line', (text) => {
    const line = JSON.parse(text) as Line;
    lines.push(line);
    for (const w of [...waiters]) if (w.match(line)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(line));
  });
  const ended = new Promise<number>((done) => child.once('exit', (code) => done(code ?? -1)));
  return {
    lines,
    /** The first line (seen or to come) that matches, within 60 s. */
    next(match: (l: Line) => boolean): Promise<Line> {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((res, rej) => {
        const timer = setTimeout(() => rej(new Error(`no such line; saw ${JSON.stringify(lines)} ${stderr}`)), 60_000);
        waiters.push({ match, resolve: (l) => (clearTimeout(timer), res(l)) });
      });
    },
    async done(): Promise<Line[]> {
      const code = await ended;
      assert.equal(code, 0, `python client failed: ${JSON.stringify(lines)}\n${stderr}`);
      return lines;
    },
  };
}

async function run(args: string[], token: string): Promise<Line[]> {
  return client(args, token).done();
}

/** The person approves the commit on the console page the task's elicitation names, in headless Chromium. */
async function approveInConsole(browser: Browser, base: TestPlatform, person: Person, url: string): Promise<void> {
  const { context, page } = await consolePage(browser);
  try {
    const path = new URL(url).pathname;
    await signIn(page, { ...base, url: new URL(url).origin }, person, path);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByTestId('commit-state').getByText('committed', { exact: true }).waitFor({ timeout: 60_000 });
  } finally {
    await context.close();
  }
}

const elicitation = (task: Record<string, any>) => Object.values(task.inputRequests as Record<string, any>)[0];

describe('MCP tasks through the official Python SDK', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let person: Person;
  let token: string;
  let ws: string;
  let col: string;

  before(async () => {
    assert.ok(existsSync(python), `${python} is missing: run temporal-dev/install-mcp-servers.sh`);
    platform = await startPlatform();
    browser = await launchBrowser();
    person = await newPerson(platform);
    token = (await createApiKey(person.api, ['artifact:read', 'artifact:write', 'search:read', 'artifact:invoke'])).key;
    ws = (await person.api.post('/workspaces', { name: 'Task drafts' })).body.id as string;
    col = (await person.api.post('/collections', { name: 'Task notes' })).body.id as string;
  });
  after(async () => {
    await browser?.close();
    await platform?.close();
  });

  it('commit_workspace as a task: input_required with the console URL, a person approves in the console, tasks/get returns the commit', async () => {
    const id = await draft(person.api, ws, 'Tasked', '# Tasked\n\nthrough a task\n');
    const py = client(
      ['call', `${platform.url}/mcp`, 'commit_workspace', JSON.stringify({ workspace_id: ws, collection_id: col, message: 'by task' })],
      token,
    );
    const connected = await py.next((l) => l.event === 'connected');
    assert.equal(connected.protocol, '2026-07-28');
    assert.deepEqual(connected.extensions, ['io.modelcontextprotocol/tasks']);

    const created = await py.next((l) => l.event === 'created');
    const taskId = created.task!.taskId as string;
    const commits = (await person.api.get(`/commits?workspace_id=${ws}`)).body.items as { id: string; workflow_id: string }[];
    const commit = commits.find((c) => c.workflow_id === taskId);
    assert.ok(commit, `the task id is the commit workflow's business id (${taskId})`);

    const waiting = await py.next((l) => l.event === 'status' && l.task!.status === 'input_required');
    const ask = elicitation(waiting.task!);
    assert.equal(ask.method, 'elicitation/create');
    assert.equal(ask.params.mode, 'url');
    assert.equal(ask.params.url, `${platform.url}/console/commits/${commit.id}`, 'the approval page on the host the client used');
    assert.equal(
      (await person.api.get(`/commits/${commit.id}`)).body.state,
      'awaiting_approval',
      'nothing committed before a person approves',
    );

    await approveInConsole(browser, platform, person, ask.params.url);
    const lines = await py.done();
    const result = lines.at(-1)!.result!;
    assert.equal(result.isError ?? false, false, JSON.stringify(result));
    assert.equal(result.structuredContent.status, 'committed');
    assert.equal(result.structuredContent.commit_id, commit.id);
    assert.equal((await person.api.get(`/commits/${commit.id}`)).body.state, 'committed');
    const versions = await person.api.get(`/artifacts?collection_id=${col}`);
    assert.ok(
      (versions.body.items as { title: string }[]).some((a) => a.title === 'Tasked'),
      `${id} went into the collection`,
    );
  });

  it('survives an API restart between tools/call and tasks/get: the task is durable before it is returned', async () => {
    await draft(person.api, ws, 'Restarted', '# Restarted\n\nacross a restart\n');
    let api: ApiProcess = await apiProcess(platform);
    const started = (
      await run(
        [
          'start',
          `${api.url}/mcp`,
          'commit_workspace',
          JSON.stringify({ workspace_id: ws, collection_id: col, message: 'across a restart' }),
        ],
        token,
      )
    ).at(-1)!.result!;
    assert.equal(started.resultType, 'task', JSON.stringify(started));
    assert.ok(['working', 'input_required'].includes(started.status as string));
    const taskId = started.taskId as string;
    // Straight away, before anything else: the task resolves (durably created before it was returned).
    const first = (await run(['get', `${api.url}/mcp`, taskId], token)).at(-1)!.task!;
    assert.equal(first.taskId, taskId);

    await api.stop();
    api = await apiProcess(platform);
    try {
      const waiting = await eventually(
        async () => {
          const task = (await run(['get', `${api.url}/mcp`, taskId], token)).at(-1)!.task!;
          return task.status === 'input_required' ? task : null;
        },
        60_000,
        'input_required after the restart',
      );
      const url = elicitation(waiting).params.url as string;
      assert.ok(url.startsWith(`${api.url}/console/commits/`), url);
      const follower = client(['follow', `${api.url}/mcp`, taskId], token);
      await approveInConsole(browser, platform, person, url);
      const end = (await follower.done()).at(-1)!.task!;
      assert.equal(end.status, 'completed', JSON.stringify(end));
      assert.equal(end.result.structuredContent.status, 'committed');
    } finally {
      await api.stop();
    }
  });

  it("a task is its credential's: another person, or another key of the same person, is told it does not exist", async () => {
    await draft(person.api, ws, 'Guarded', '# Guarded\n');
    const args = [
      'start',
      `${platform.url}/mcp`,
      'commit_workspace',
      JSON.stringify({ workspace_id: ws, collection_id: col, message: 'guarded' }),
    ];
    const taskId = (await run(args, token)).at(-1)!.result!.taskId as string;
    const other = await newPerson(platform);
    const strangers = [
      (await createApiKey(other.api, ['artifact:read', 'artifact:write'])).key,
      // The same person's narrower key: it may not read, answer or cancel what the first one asked for.
      (await createApiKey(person.api, ['search:read', 'artifact:read'])).key,
      (await createApiKey(person.api, ['artifact:read', 'artifact:write', 'search:read', 'artifact:invoke'])).key,
    ];
    for (const stranger of strangers)
      for (const mode of ['get', 'cancel'])
        assert.match(
          String((await client([mode, `${platform.url}/mcp`, taskId], stranger).next((l) => l.event === 'error')).message),
          /Unknown task/,
          mode,
        );
    assert.equal((await run(['get', `${platform.url}/mcp`, taskId], token)).at(-1)!.task!.taskId, taskId, 'its own credential reads it');
  });

  it('tasks/cancel while no worker runs, before the preview is made, withdraws the commit durably: it never becomes approvable', async () => {
    await draft(person.api, ws, 'Withdrawn', '# Withdrawn\n');
    await platform.stopWorker();
    let taskId: string;
    try {
      const args = [
        'start',
        `${platform.url}/mcp`,
        'commit_workspace',
        JSON.stringify({ workspace_id: ws, collection_id: col, message: 'to withdraw' }),
      ];
      taskId = (await run(args, token)).at(-1)!.result!.taskId as string;
      // Answered without a worker: the withdrawal is a signal Temporal records at once.
      await run(['cancel', `${platform.url}/mcp`, taskId], token);
    } finally {
      await platform.startWorker();
    }
    const end = (await run(['follow', `${platform.url}/mcp`, taskId], token)).at(-1)!.task!;
    assert.equal(end.status, 'cancelled', JSON.stringify(end));
    const commits = (await person.api.get(`/commits?workspace_id=${ws}`)).body.items as {
      id: string;
      workflow_id: string;
      state: string;
    }[];
    const commit = commits.find((c) => c.workflow_id === taskId)!;
    assert.equal(commit.state, 'rejected', 'withdrawn: nothing committed');
    const decision = (await person.api.get(`/commits/${commit.id}`)).body.decision as { comment: string };
    assert.match(decision.comment, /Withdrawn by its requester \(MCP tasks\/cancel, through api_key /);
    assert.equal((await person.api.post(`/commits/${commit.id}/approve`, {})).status, 409, 'a withdrawn commit cannot be approved');
  });

  it("a cancel after a person decided changes nothing: the task keeps the person's rejection", async () => {
    await draft(person.api, ws, 'Rejected', '# Rejected\n');
    const args = [
      'start',
      `${platform.url}/mcp`,
      'commit_workspace',
      JSON.stringify({ workspace_id: ws, collection_id: col, message: 'to reject' }),
    ];
    const taskId = (await run(args, token)).at(-1)!.result!.taskId as string;
    const waiting = await eventually(
      async () => {
        const task = (await run(['get', `${platform.url}/mcp`, taskId], token)).at(-1)!.task!;
        return task.status === 'input_required' ? task : null;
      },
      60_000,
      'input_required',
    );
    const commitId = elicitation(waiting).params.elicitationId as string;
    assert.equal((await person.api.post(`/commits/${commitId}/reject`, { comment: 'not this week' })).status, 200);
    await run(['cancel', `${platform.url}/mcp`, taskId], token);
    const end = (await run(['follow', `${platform.url}/mcp`, taskId], token)).at(-1)!.task!;
    assert.equal(end.status, 'completed', JSON.stringify(end));
    assert.equal(end.result.isError, true);
    assert.match(end.result.content[0].text, /A person rejected the commit: not this week/);
  });

  it('a client that does not declare the extension gets the proposal as before, never a task (2025 era, and 2026-07-28 without it)', async () => {
    const call = { name: 'commit_workspace', arguments: { workspace_id: ws, collection_id: col, message: 'plain' } };
    await draft(person.api, ws, 'Plain', '# Plain\n');
    const res = await fetch(`${platform.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: call }),
    });
    const legacy = ((await res.json()) as { result: Record<string, any> }).result;
    assert.equal(legacy.resultType, undefined);
    assert.equal(legacy.structuredContent.status, 'awaiting_human_approval');

    await draft(person.api, ws, 'Plain 2026', '# Plain 2026\n');
    const modern = (
      await postMcp(`${platform.url}/mcp`, token, {
        method: 'tools/call',
        params: { ...call, arguments: { ...call.arguments, message: 'plain 2026' }, _meta: envelope(false) },
      })
    ).result!;
    assert.equal(modern.resultType, 'complete', JSON.stringify(modern));
    assert.equal(modern.structuredContent.status, 'awaiting_human_approval');
  });
});
