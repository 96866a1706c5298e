// The README's first session runs as written: its ```sh blocks, in order, in one bash, against a platform
// this test starts (the README's http://localhost:8080 becomes the platform's URL). Each block must exit
// 0 and print what the ```text block after it says. The session runs twice, as the README promises:
// with the administrator from PLATFORM_ADMIN_EMAIL/PLATFORM_ADMIN_PASSWORD, and with the credentials
// file a development platform writes when they are unset.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { adminEmail, adminPassword, startPlatform } from '../helpers/platform.js';
import { matchesExpected, shellSteps, type ShellStep } from './markdown.js';

const root = resolve(import.meta.dirname, '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const steps = shellSteps(readme);

/** Whole-session deadline: the bash is killed past it (a block that loops forever fails here). */
const sessionMs = 180_000;

/**
 * The development defaults `npm start` runs with, not the test helper's stricter ones: loopback is
 * reachable (MCP_OUTBOUND_LOOPBACK unset, no MCP_OUTBOUND_ALLOW), as the README's local MCP server and
 * webhook receiver need (issue #37).
 */
const developmentDefaults = { MCP_OUTBOUND_LOOPBACK: undefined, MCP_OUTBOUND_ALLOW: undefined } as unknown as Record<string, string>;

async function startDevelopmentPlatform(overrides: Record<string, string> = {}) {
  const platform = await startPlatform({ ...developmentDefaults, ...overrides });
  assert.equal(platform.config.PLATFORM_ENV, 'development');
  assert.equal(platform.config.MCP_OUTBOUND_LOOPBACK, undefined, 'the default, not a setting');
  assert.equal(platform.config.MCP_OUTBOUND_ALLOW, '', 'no allow-list');
  assert.equal(platform.config.outboundLoopback, true);
  return platform;
}

interface Outcome {
  code: number | null;
  outputs: string[];
  stderr: string;
}

/** Runs the steps in one `bash -euo pipefail`, a marker line before each, and splits stdout at the markers. */
async function runSession(baseUrl: string, env: Record<string, string>): Promise<Outcome> {
  const home = mkdtempSync(join(tmpdir(), 'readme-session-'));
  try {
    // Every curl of the session has a deadline, without writing one into each README command.
    writeFileSync(join(home, '.curlrc'), 'max-time = 30\nconnect-timeout = 5\n');
    const marker = (k: number) => `@@readme-step-${k}@@`;
    const script = steps.map((s, k) => `echo '${marker(k)}'\n${s.code.replaceAll('http://localhost:8080', baseUrl)}`).join('\n');
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CURL_HOME: home, LANG: 'C.UTF-8', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), sessionMs);
    const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
    clearTimeout(timer);
    const outputs: string[] = [];
    const parts = stdout.split(/^@@readme-step-(\d+)@@\n/m);
    for (let i = 1; i < parts.length; i += 2) outputs[Number(parts[i])] = parts[i + 1] ?? '';
    return { code, outputs, stderr };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

function checkSession(outcome: Outcome) {
  const reached = outcome.outputs.length - 1;
  const where = (s: ShellStep | undefined) => `README.md:${s?.line ?? '?'}`;
  assert.equal(
    outcome.code,
    0,
    `the block at ${where(steps[Math.max(reached, 0)])} failed (exit ${outcome.code}):\n${outcome.outputs[reached] ?? ''}\n${outcome.stderr}`,
  );
  assert.equal(outcome.outputs.length, steps.length, 'every block ran');
  steps.forEach((step, k) => {
    if (step.expected === undefined) return;
    assert.ok(
      matchesExpected(step.expected, outcome.outputs[k] ?? ''),
      `the block at ${where(step)} printed\n${outcome.outputs[k]}\nwhere the README says\n${step.expected}\n${outcome.stderr}`,
    );
  });
}

describe("the README's first session", () => {
  it('has runnable blocks, each but the helpers followed by what it prints', () => {
    assert.ok(steps.length >= 5, `only ${steps.length} runnable blocks`);
    assert.ok(
      steps.every((s) => s.expected !== undefined),
      'a ```text block follows every ```sh block',
    );
    assert.ok(readme.includes('http://localhost:8080'), 'the README names the default address');
    // The journeys on a developer's own machine (issue #37) are among the blocks run.
    const run = steps.map((s) => s.code).join('\n');
    assert.match(run, /npx -y @modelcontextprotocol\/server-everything streamableHttp/, 'a local MCP server over HTTP');
    assert.match(run, /"type\\?": \\?"http\\?", \\?"url\\?": \\?"http:\/\/127\.0\.0\.1:/, 'registered by its url, on loopback');
    assert.match(run, /\/workspaces\/\$WS\/subscriptions -d '\{"url": "http:\/\/127\.0\.0\.1:/, 'a webhook to a loopback receiver');
  });

  it('runs as written with the administrator from PLATFORM_ADMIN_EMAIL and PLATFORM_ADMIN_PASSWORD', async () => {
    const platform = await startDevelopmentPlatform();
    try {
      const outcome = await runSession(platform.url, { PLATFORM_ADMIN_EMAIL: adminEmail, PLATFORM_ADMIN_PASSWORD: adminPassword });
      checkSession(outcome);
      assert.match(outcome.outputs[0] ?? '', new RegExp(`^${adminEmail.replace('.', '\\.')}$`, 'm'));
    } finally {
      await platform.close();
    }
  });

  it('runs as written with the credentials file a development platform generates', async () => {
    // No administrator configured: the platform writes $PLATFORM_DEV_DIR/admin-credentials.json.
    const unset = { PLATFORM_ADMIN_EMAIL: undefined, PLATFORM_ADMIN_PASSWORD: undefined } as unknown as Record<string, string>;
    const platform = await startDevelopmentPlatform(unset);
    try {
      const credentials = JSON.parse(readFileSync(join(platform.config.PLATFORM_DEV_DIR, 'admin-credentials.json'), 'utf8'));
      assert.equal(credentials.email, 'admin@platform.local');
      const outcome = await runSession(platform.url, { PLATFORM_DEV_DIR: platform.config.PLATFORM_DEV_DIR });
      checkSession(outcome);
      assert.match(outcome.outputs[0] ?? '', /^admin@platform\.local$/m);
    } finally {
      await platform.close();
    }
  });
});
