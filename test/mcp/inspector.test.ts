// The MCP Inspector's CLI (the registry's @modelcontextprotocol/inspector-cli) lists and calls tools
// against the running server, as the README shows.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createApiKey } from '../helpers/credentials.js';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { tools } from '../../src/mcp-server/tools.js';

const run = promisify(execFile);
let platform: TestPlatform;
let alice: Api;

before(async () => {
  platform = await startPlatform({}, { worker: false });
  alice = await platform.newUser();
});
after(() => platform.close());

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
      /403|insufficient_scope|Forbidden/i,
    );
  });
});
