// The typed client package (clients/typescript, @workspace-platform/client; issue #37) as a builder gets it:
// `npm pack` (which builds it with tsc), the tarball installed into a folder of its own, a consumer script
// (clients/typescript/test/consumer.ts) type-checked against the installed .d.ts, then run against the
// platform: a person signs in, creates a workspace and a draft, an API key searches, a server credential
// exchanges its secret once, and every kind of failure arrives as its own error class.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { adminEmail, adminPassword, startPlatform, type TestPlatform } from '../helpers/platform.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const packageDir = join(root, 'clients/typescript');
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let platform: TestPlatform;
let work: string;
let consumer: string;
let tarball: string;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'client-package-'));
  const [started, packed] = await Promise.all([
    startPlatform(),
    // prepack builds dist/ with the repository's tsc; --json names the tarball.
    run(npm, ['pack', '--json', '--pack-destination', work], { cwd: packageDir, timeout: 180_000 }),
  ]);
  platform = started;
  tarball = join(work, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  consumer = join(work, 'consumer');
  await run('mkdir', ['-p', consumer]);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // A tarball without dependencies installs with nothing to download.
  await run(npm, ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: consumer, timeout: 120_000 });
});
after(async () => {
  await platform?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the typed client package', () => {
  it('installs from its tarball: built JS and .d.ts, its exports, no dependencies, the release version', () => {
    const installed = join(consumer, 'node_modules/@workspace-platform/client');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    const release = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
    assert.equal(manifest.version, release, 'the client carries the platform release it was generated from');
    assert.equal(manifest.dependencies, undefined);
    for (const entry of Object.values(manifest.exports as Record<string, { types?: string; default?: string } | string>))
      for (const file of typeof entry === 'string' ? [entry] : Object.values(entry)) assert.ok(existsSync(join(installed, file)), file);
    assert.ok(existsSync(join(installed, 'dist/openapi.d.ts')));
    assert.ok(!existsSync(join(installed, 'src')), 'the sources stay out of the tarball');
  });

  it('type-checks a consumer against the installed .d.ts (what the types refuse is refused), then runs it against the platform', async () => {
    copyFileSync(join(packageDir, 'test/consumer.ts'), join(consumer, 'consumer.ts'));
    const compilerOptions = {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: false, // the package's .d.ts are checked too
      typeRoots: [join(root, 'node_modules/@types')],
      types: ['node'],
      outDir: 'out',
    };
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
    await run(process.execPath, [tsc, '-p', consumer], { timeout: 120_000 }).catch((err: { stdout?: string }) => {
      throw new Error(`the consumer does not compile:\n${err.stdout}`);
    });

    const { stdout } = await run(process.execPath, [join(consumer, 'out/consumer.js')], {
      cwd: consumer,
      timeout: 120_000,
      env: { ...process.env, PLATFORM_URL: platform.url, ADMIN_EMAIL: adminEmail, ADMIN_PASSWORD: adminPassword },
    });
    const read = JSON.parse(stdout.trim().split('\n').at(-1)!);
    assert.deepEqual(read.me, { kind: 'user', admin: true, email: adminEmail });
    assert.equal(read.workspace.name, 'Typed client');
    assert.equal(read.artifact.title, 'Telescope budget');
    assert.equal(read.artifact.etag, `"${read.artifact.revision}"`);
    assert.deepEqual(read.listed, ['Telescope budget']);
    assert.deepEqual(read.search, { found: true, by: 'api_key' });
    assert.deepEqual(read.server, { kind: 'server_credential', same: true, exchanges: 1 });
    assert.deepEqual(read.errors.missing, { class: 'ProblemError', status: 404, slug: 'not-found', params: [], requestId: true });
    assert.equal(read.errors.invalid.slug, 'validation-error');
    assert.deepEqual(read.errors.invalid.params, ['name']);
    assert.equal(read.errors.refused.status, 403);
    assert.deepEqual(read.errors.badSecret, { class: 'TokenError', status: 401, error: 'invalid_client' });
    assert.equal(read.errors.badKey.status, 401);
    assert.equal(read.deadline.class, 'DeadlineError');
    assert.ok(read.deadline.ms >= 300 && read.deadline.ms < 5000, `the deadline ended the call after ${read.deadline.ms} ms`);
    assert.equal(read.connection, 'ConnectionError');
  });
});
