// The official Python MCP SDK through an MCP client configuration's endpoint
// (test/fixtures/python-mcp-client-config.py): with an API key and as an OAuth client given only the
// URL, it sees exactly the configured tools, and a tool outside them is unknown there.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../helpers/credentials.js';
import { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const python = resolve(process.env.PLATFORM_DEV_DIR ?? '.dev', 'uv', 'mcp-client', 'bin', 'python');
const script = resolve('test/fixtures/python-mcp-client-config.py');

let platform: TestPlatform;
let person: { email: string; password: string };
let api: Api;

before(async () => {
  platform = await startPlatform({ SIGN_IN_LOCK_AFTER: '0', AUTH_RATE_LIMIT_PER_MINUTE: '0' }, { worker: false });
  person = { email: `python-${randomBytes(4).toString('hex')}@example.test`, password: randomBytes(12).toString('hex') };
  const created = await (await platform.admin()).post('/users', person);
  assert.equal(created.status, 201, created.text);
  api = await new Api(platform.url).login(person.email, person.password);
});
after(() => platform?.close());

interface Report {
  apiKey: { tools: string[]; outside: { isError?: boolean; text?: string; code?: number; message?: string } };
  oauth: { tools: string[] };
}

function run(url: string, key: string): Promise<{ code: number; report: Report | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      python,
      [script, url],
      {
        timeout: 120_000,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          PLATFORM_EMAIL: person.email,
          PLATFORM_PASSWORD: person.password,
          PLATFORM_KEY: key,
        },
      },
      (err, stdout, stderr) => {
        let report: Report | null = null;
        try {
          report = JSON.parse(stdout.trim().split('\n').pop() ?? '') as Report;
        } catch {
          // no JSON: the assertion below shows stdout and stderr
        }
        done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, report, stdout, stderr });
      },
    );
  });
}

describe('the Python MCP SDK through an MCP client configuration', () => {
  it('sees only the configured tools, with an API key and as an OAuth client', async () => {
    assert.ok(existsSync(python), `${python} is missing: run temporal-dev/install-mcp-servers.sh`);
    const created = await api.post('/artifacts', {
      title: 'Python',
      content_type: 'application/vnd.platform.mcp-client+json',
      content: JSON.stringify({
        workspaces: '*',
        collections: '*',
        tools: ['get_artifact', 'browse_workspaces'],
        scopes: ['artifact:read'],
        auth: { type: 'oauth' },
      }),
    });
    assert.equal(created.status, 201, created.text);
    const key = (await createApiKey(api, ['artifact:read', 'artifact:write', 'search:read'])).key;
    const result = await run(`${platform.url}/mcp/clients/${created.body.id}`, key);
    assert.equal(result.code, 0, `the script failed:\n${result.stdout}\n${result.stderr.slice(-6000)}`);
    const { apiKey, oauth } = result.report!;
    assert.deepEqual(apiKey.tools, ['browse_workspaces', 'get_artifact']);
    const outside = apiKey.outside;
    assert.ok(outside.isError === true || outside.code !== undefined, JSON.stringify(outside));
    assert.match(outside.text ?? outside.message ?? '', /create_artifact.*not found|unknown tool/i);
    assert.deepEqual(oauth.tools, ['browse_workspaces', 'get_artifact']);
  });
});
