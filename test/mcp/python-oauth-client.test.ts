// The official Python MCP SDK (`mcp` 2.3.0 from PyPI, in the uv environment that
// temporal-dev/install-mcp-servers.sh makes) as an OAuth client of the platform: it registers itself,
// completes the authorization-code flow with PKCE, lists the tools, calls `search`, refreshes its token
// and calls again. The person's part, the sign-in and consent pages, is played by plain HTTP form posts
// inside the script (test/fixtures/python-oauth-client.py), as a browser without script would.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const python = resolve(process.env.PLATFORM_DEV_DIR ?? '.dev', 'uv', 'mcp-client', 'bin', 'python');
const script = resolve('test/fixtures/python-oauth-client.py');

let platform: TestPlatform;
let person: { email: string; password: string; id: string };

before(async () => {
  platform = await startPlatform({ SIGN_IN_LOCK_AFTER: '0', AUTH_RATE_LIMIT_PER_MINUTE: '0' });
  const admin = await platform.admin();
  const email = `python-${randomBytes(4).toString('hex')}@example.test`;
  const password = randomBytes(12).toString('hex');
  const created = await admin.post('/users', { email, password });
  assert.equal(created.status, 201, created.text);
  person = { email, password, id: created.body.id };
});
after(() => platform.close());

interface ToolOutcome {
  isError: boolean;
  text: string;
}

interface ScriptReport {
  error?: string;
  protocolVersion: string;
  clientId: string;
  tokenEndpointAuthMethod: string;
  toolCount: number;
  hasSearch: boolean;
  search1: ToolOutcome;
  search2: ToolOutcome;
  expiresIn: number;
  tokenSets: number;
  refreshTokenChanged: boolean;
  accessTokenChanged: boolean;
  scope: string;
  grantedScopes: string[];
  browser: { method: string; path: string; status: number }[];
  sdkRequests: { method: string; path: string; status: number; grant_type?: string; resource?: string }[];
}

/** Runs the script; resolves with its JSON line and stderr whatever the exit code. */
function runScript(): Promise<{ code: number; report: ScriptReport | null; stdout: string; stderr: string }> {
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
        },
      },
      (err, stdout, stderr) => {
        const line = stdout.trim().split('\n').pop() ?? '';
        let report: ScriptReport | null = null;
        try {
          report = JSON.parse(line) as ScriptReport;
        } catch {
          // no JSON: the assertion below shows stdout and stderr
        }
        done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, report, stdout, stderr });
      },
    );
  });
}

describe('the Python MCP SDK as an OAuth client', () => {
  it('registers, signs the person in through the pages, lists the tools, calls search, refreshes and calls again', async () => {
    assert.ok(existsSync(python), `${python} is missing: run temporal-dev/install-mcp-servers.sh`);
    const run = await runScript();
    assert.equal(run.code, 0, `the script failed:\n${run.stdout}\n${run.stderr.slice(-6000)}`);
    const report = run.report!;
    assert.ok(report, run.stdout);
    console.log(
      `[python-oauth-client] protocol ${report.protocolVersion}, ${report.toolCount} tools, refresh token rotated: ${report.refreshTokenChanged}`,
    );

    assert.equal(report.protocolVersion, '2026-07-28', 'the current protocol revision, with no fallback');

    // Registered itself (RFC 7591) as a public client: stored, with its loopback redirect URI.
    const client = await platform.services.db.collection('oauth_clients').findOne({ _id: report.clientId as never });
    assert.ok(client, `client ${report.clientId} is registered`);
    assert.equal(client.token_endpoint_auth_method, 'none');
    assert.deepEqual(client.redirect_uris, ['http://127.0.0.1:53682/callback']);
    assert.equal(client.client_name, 'Python SDK OAuth test');

    // The person's browser: the sign-in page, the form post, our 303 to the consent page, "Allow".
    assert.deepEqual(
      report.browser.map((p) => `${p.method} ${p.path} ${p.status}`),
      ['GET /oauth/authorize 200', 'POST /oauth/login 303', 'GET /oauth/authorize 200', 'POST /oauth/consent 303'],
    );

    // The SDK's own requests: discovery after the 401, registration, the code grant, and later its refresh grant.
    const seen = report.sdkRequests.map((r) => `${r.method} ${r.path} ${r.status}${r.grant_type ? ` ${r.grant_type}` : ''}`);
    assert.ok(seen.includes('POST /oauth/register 201'), seen.join('\n'));
    assert.ok(seen.includes('POST /auth/token 200 authorization_code'), seen.join('\n'));
    assert.ok(seen.includes('POST /auth/token 200 refresh_token'), seen.join('\n'));
    assert.ok(
      report.sdkRequests.filter((r) => r.path === '/auth/token').every((r) => r.resource === `${platform.url}/mcp`),
      'both grants name /mcp as the resource (RFC 8707)',
    );

    assert.equal(report.hasSearch, true);
    assert.ok(report.toolCount > 1);
    assert.equal(report.search1.isError, false, report.search1.text);
    assert.equal(report.search2.isError, false, report.search2.text);
    // The refresh rotated the refresh token and issued a new access token.
    assert.equal(report.tokenSets, 2);
    assert.equal(report.refreshTokenChanged, true);
    assert.equal(report.accessTokenChanged, true);

    // The platform recorded the person's consent for that client, with the scopes they allowed.
    const consent = await platform.services.consents.get(person.id, 'oauth_client', report.clientId);
    assert.ok(consent?.oauth, 'a consent for the client');
    assert.equal(consent.oauth.client_name, 'Python SDK OAuth test');
    assert.deepEqual([...consent.oauth.scopes].sort(), [...report.grantedScopes].sort());
    assert.ok(consent.oauth.scopes.includes('search:read') && consent.oauth.scopes.includes('artifact:read'));
    assert.deepEqual(report.scope.split(' ').sort(), [...consent.oauth.scopes].sort());
  });
});
