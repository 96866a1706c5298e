// The official Python MCP SDK (`mcp` 2.3.0 from PyPI) against the scope checks of /mcp
// (test/fixtures/python-scopes-client.py): tools/list differs by scope; a call needing a scope the
// token lacks is refused with 403 insufficient_scope, which an API key's client reports as the
// request's error and the SDK's OAuth client answers by sending the person to authorize more.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../helpers/credentials.js';
import { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { ScopeSet } from '../../src/identity/principal.js';
import { missingScope, tools } from '../../src/mcp-server/tools.js';

const python = resolve(process.env.PLATFORM_DEV_DIR ?? '.dev', 'uv', 'mcp-client', 'bin', 'python');
const script = resolve('test/fixtures/python-scopes-client.py');

let platform: TestPlatform;
let person: { email: string; password: string };
let readKey: string;

before(async () => {
  platform = await startPlatform({ SIGN_IN_LOCK_AFTER: '0', AUTH_RATE_LIMIT_PER_MINUTE: '0' }, { worker: false });
  person = { email: `python-${randomBytes(4).toString('hex')}@example.test`, password: randomBytes(12).toString('hex') };
  const created = await (await platform.admin()).post('/users', person);
  assert.equal(created.status, 201, created.text);
  readKey = (await createApiKey(await new Api(platform.url).login(person.email, person.password), ['artifact:read', 'search:read'])).key;
});
after(() => platform.close());

const listedFor = (scopes: string[]) =>
  tools
    .filter((t) => !missingScope(new ScopeSet(scopes), t))
    .map((t) => t.name)
    .sort();

interface Report {
  error?: string;
  apiKey: { protocolVersion: string; tools: string[]; refused: { code: number; message: string; data: Record<string, unknown> } | null };
  oauth: {
    toolsBefore: string[];
    toolsAfter: string[];
    firstScope: string;
    finalScope: string;
    asked: string[][];
    created: { isError: boolean; text: string };
    createdTitle: string;
    mcpStatuses: number[];
  };
}

function runScript(): Promise<{ code: number; report: Report | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      python,
      [script, `${platform.url}/mcp`],
      {
        timeout: 120_000,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          PLATFORM_EMAIL: person.email,
          PLATFORM_PASSWORD: person.password,
          PLATFORM_READ_KEY: readKey,
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

describe('the Python MCP SDK and scopes', () => {
  it('lists the tools by scope, reports a refused call, and steps up through the person to call it', async () => {
    assert.ok(existsSync(python), `${python} is missing: run temporal-dev/install-mcp-servers.sh`);
    const run = await runScript();
    assert.equal(run.code, 0, `the script failed:\n${run.stdout}\n${run.stderr.slice(-6000)}`);
    const { apiKey, oauth } = run.report!;

    assert.equal(apiKey.protocolVersion, '2026-07-28');
    assert.deepEqual(apiKey.tools, listedFor(['artifact:read', 'search:read']));
    assert.ok(!apiKey.tools.includes('create_artifact'));
    // No OAuth to step up with: the SDK raises the JSON-RPC error the 403's body carries.
    assert.ok(apiKey.refused, 'create_artifact was refused');
    assert.equal(apiKey.refused.code, -32600);
    assert.match(apiKey.refused.message, /needs the artifact:write scope/);
    assert.equal(apiKey.refused.data.type, 'urn:platform:problem:insufficient-scope');

    // OAuth: the person first withholds artifact:write; the list is narrower, and the call steps up.
    const first = oauth.firstScope.split(' ');
    assert.ok(!first.includes('artifact:write') && first.includes('artifact:read'), oauth.firstScope);
    assert.deepEqual(oauth.toolsBefore, listedFor(first));
    assert.equal(oauth.asked.length, 2, 'the person was sent to authorize twice: sign-in, then step-up');
    assert.ok(oauth.asked[1]!.includes('artifact:write') && first.every((s) => oauth.asked[1]!.includes(s)), `${oauth.asked[1]}`);
    assert.ok(oauth.mcpStatuses.includes(403), `the step-up began with a 403: ${oauth.mcpStatuses}`);
    assert.equal(oauth.created.isError, false, oauth.created.text);
    assert.equal(oauth.createdTitle, 'From Python');
    assert.ok(oauth.finalScope.split(' ').includes('artifact:write'), oauth.finalScope);
    assert.deepEqual(oauth.toolsAfter, listedFor(oauth.finalScope.split(' ')));
    assert.ok(oauth.toolsAfter.includes('create_artifact'));
  });
});
