// The MCP Inspector's CLI (the maintained @modelcontextprotocol/inspector, `--cli`) lists and calls
// tools against the running server, as the README and docs/mcp-clients.md show: through
// `npm run mcp:inspect`, and as the `npx` command the docs give, run from a plain folder (with the
// installed copy: nothing is downloaded).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createApiKey } from '../helpers/credentials.js';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { tools } from '../../src/mcp-server/tools.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
let platform: TestPlatform;
let alice: Api;
let plain: string; // a folder with no package.json, and the Inspector's home (its ~/.mcp-inspector)

before(async () => {
  platform = await startPlatform({}, { worker: false });
  alice = await platform.newUser();
  plain = mkdtempSync(join(tmpdir(), 'inspector-'));
});
after(async () => {
  await platform.close();
  rmSync(plain, { recursive: true, force: true });
});

/** The docs' `npx @modelcontextprotocol/inspector --cli …` command, its words as a shell splits them. */
function documentedCommand(): string[] {
  const lines = readFileSync(join(root, 'docs/mcp-clients.md'), 'utf8').split('\n');
  let i = lines.findIndex((l) => l.startsWith('npx @modelcontextprotocol/inspector --cli '));
  assert.ok(i >= 0, 'docs/mcp-clients.md gives the npx command');
  let command = lines[i]!;
  while (command.endsWith('\\')) command = `${command.slice(0, -1)} ${lines[++i]}`; // a continued line
  return [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

/** `npm run mcp:inspect -- --method …`, as the README shows it, with alice's token or another. */
async function inspector(args: string[], token = alice.token!): Promise<any> {
  try {
    const { stdout } = await run('bash', ['scripts/mcp-inspect.sh', ...args], {
      timeout: 60_000,
      env: { ...process.env, PLATFORM_TOKEN: token, MCP_URL: `${platform.url}/mcp` },
    });
    return JSON.parse(stdout);
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`inspector ${args.join(' ')} failed: ${stderr ?? ''} ${stdout ?? ''}`); // not the command line: it holds the token
  }
}

describe('MCP Inspector CLI', () => {
  it('lists the tools and calls one', async () => {
    const listed = await inspector(['--method', 'tools/list']);
    assert.equal(listed.tools.length, 19);
    assert.ok(
      listed.tools.every((t: { outputSchema?: { type?: string } }) => t.outputSchema?.type === 'object'),
      'every tool declares an output schema',
    );
    const ws = (await alice.post('/workspaces', { name: 'Inspected' })).body.id;
    const called = await inspector(['--method', 'tools/call', '--tool-name', 'browse_workspaces']);
    assert.ok(!called.isError, JSON.stringify(called));
    assert.ok(called.structuredContent.items.some((w: { id: string }) => w.id === ws));
  });

  it("lists only the tools an API key's scopes allow, and is refused a call to another", async () => {
    const key = (await createApiKey(alice, ['artifact:read'])).key;
    const listed = await inspector(['--method', 'tools/list'], key);
    const readable = tools.filter((t) => t.access === 'artifact:read').map((t) => t.name);
    assert.deepEqual(listed.tools.map((t: { name: string }) => t.name).sort(), readable.sort());
    assert.ok(!readable.includes('create_artifact'));
    await assert.rejects(
      inspector(
        ['--method', 'tools/call', '--tool-name', 'create_artifact', '--tool-arg', 'title=x', 'content_type=text/plain', 'content=x'],
        key,
      ),
      // The CLI looks the tool up in tools/list first, where the key does not see it; the platform's own
      // refusal of the call is tested in test/mcp/.
      /403|insufficient_scope|Forbidden|tool_not_found/i,
    );
  });

  it('runs as the docs write it, from a plain folder (the old inspector-cli crashed there)', async () => {
    const [npx, pkg, ...args] = documentedCommand();
    assert.deepEqual([npx, pkg, args[0]], ['npx', '@modelcontextprotocol/inspector', '--cli']);
    const installed = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies;
    assert.ok(installed[pkg!], `${pkg} is the dev dependency npm run mcp:inspect runs`);
    assert.ok(!installed['@modelcontextprotocol/inspector-cli'], 'the unmaintained inspector-cli is gone');
    // npx would run node_modules/.bin/mcp-inspector: the same file, here from the project's install.
    const words = args.map((w) => w.replace('http://localhost:8080/mcp', `${platform.url}/mcp`).replace('pk_...', alice.token!));
    assert.ok(words.includes(`${platform.url}/mcp`), 'the documented URL is the platform at localhost:8080');
    const { stdout } = await run(join(root, 'node_modules/.bin/mcp-inspector'), words, {
      cwd: plain,
      timeout: 60_000,
      env: { ...process.env, HOME: plain },
    });
    const listed = JSON.parse(stdout);
    assert.equal(listed.tools.length, 19);
    assert.ok(listed.tools.some((t: { name: string }) => t.name === 'search'));
  });

  it('fails, with no tools, when the token is wrong', async () => {
    const [, , ...args] = documentedCommand();
    const words = args.map((w) => w.replace('http://localhost:8080/mcp', `${platform.url}/mcp`).replace('pk_...', 'pk_not-a-key'));
    await assert.rejects(
      run(join(root, 'node_modules/.bin/mcp-inspector'), words, { cwd: plain, timeout: 60_000, env: { ...process.env, HOME: plain } }),
      (err: { code?: number; stdout?: string }) => err.code !== 0 && !/"tools"/.test(err.stdout ?? ''),
    );
  });
});
