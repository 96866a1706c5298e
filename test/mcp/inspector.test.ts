// The MCP Inspector's CLI (the registry's @modelcontextprotocol/inspector-cli) lists and calls tools
// against the running server, as the README shows.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const run = promisify(execFile);
let platform: TestPlatform;
let alice: Api;

before(async () => {
  platform = await startPlatform({}, { worker: false });
  alice = await platform.newUser();
});
after(() => platform.close());

/** `npm run mcp:inspect -- --method …`, as the README shows it. */
async function inspector(...args: string[]): Promise<any> {
  try {
    const { stdout } = await run('bash', ['scripts/mcp-inspect.sh', ...args], {
      timeout: 60_000,
      env: { ...process.env, PLATFORM_TOKEN: alice.token, MCP_URL: `${platform.url}/mcp` },
    });
    return JSON.parse(stdout);
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`inspector ${args.join(' ')} failed: ${stderr ?? ''} ${stdout ?? ''}`); // not the command line: it holds the token
  }
}

describe('MCP Inspector CLI', () => {
  it('lists the tools and calls one', async () => {
    const listed = await inspector('--method', 'tools/list');
    assert.equal(listed.tools.length, 15);
    const ws = (await alice.post('/workspaces', { name: 'Inspected' })).body.id;
    const called = await inspector('--method', 'tools/call', '--tool-name', 'browse_workspaces');
    assert.ok(!called.isError, JSON.stringify(called));
    assert.ok(called.structuredContent.items.some((w: { id: string }) => w.id === ws));
  });
});
