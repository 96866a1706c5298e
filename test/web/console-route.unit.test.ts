// The console's route without engines: a Koa app with only the console routes, serving a build made
// into a temporary folder. What it serves, with which headers, and that no request path reaches a
// file outside the build (the build's folder sits next to package.json-like files to be reached for).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Router from '@koa/router';
import Koa from 'koa';
import type { AppState } from '../../src/api/context.js';
import { problemResponses } from '../../src/api/middleware/problems.js';
import { mountRoutes } from '../../src/api/route.js';
import { consoleCsp, consoleRoutes } from '../../src/api/routes/console.js';
import { loadConfig } from '../../src/kernel/config/env.js';
import { buildConsole, type ConsoleBuild } from '../../src/console/build-console.js';
import { rawGet } from './raw-get.js';

describe('the console route', () => {
  let dir: string;
  let server: Server;
  let base: string;
  let build: ConsoleBuild;
  const secret = 'NOT-FOR-THE-BROWSER';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'console-route-'));
    const out = join(dir, 'deep', 'console');
    build = await buildConsole(out);
    // Files a traversal would be after: beside the build, one and two levels up.
    writeFileSync(join(dir, 'deep', 'package.json'), secret);
    writeFileSync(join(dir, 'package.json'), secret);
    const config = loadConfig({ PLATFORM_ENV: 'development', CONSOLE_ASSETS_DIR: out, PLATFORM_DEV_DIR: dir });
    const app = new Koa<AppState>();
    app.context.services = { config } as never;
    const router = new Router<AppState>();
    mountRoutes(router, consoleRoutes, 1024 * 1024);
    app.use(problemResponses as Koa.Middleware);
    app.use(router.routes());
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const address = server.address() as { port: number };
    base = `http://127.0.0.1:${address.port}`;
  });
  after(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('builds small, hashed assets quickly', () => {
    const names = Object.keys(build.assets);
    assert.ok(
      names.some((n) => /^main-[A-Z0-9]+\.js$/.test(n)),
      names.join(', '),
    );
    assert.ok(
      names.some((n) => /^main-[A-Z0-9]+\.css$/.test(n)),
      names.join(', '),
    );
    // What a first visit loads: the entry script, the chunks it imports (and theirs), the style. The
    // viewer host is a chunk of its own, fetched only for an artifact with a viewer.
    const loaded = new Set<string>();
    const visit = (name: string) => {
      if (loaded.has(name)) return;
      loaded.add(name);
      if (!name.endsWith('.js')) return;
      const code = readFileSync(join(build.outDir, 'assets', name), 'utf8');
      for (const [, chunk] of code.matchAll(/import(?:[^"'()]*?from)?\s*["']\.\/(chunk-[A-Z0-9]+\.js)["']/g)) visit(chunk!);
    };
    for (const name of names.filter((n) => n.startsWith('main-'))) visit(name);
    const first = [...loaded].reduce((sum, name) => sum + build.assets[name]!, 0);
    assert.ok(first < 100_000, `a first visit loads ${first} bytes: ${[...loaded].join(', ')}`);
    assert.ok(loaded.size < names.length, 'the viewer host is not part of the first load');
    console.log(`# console build: ${build.ms} ms, ${JSON.stringify(build.assets)}`);
  });

  it('serves the page at /console/ and client-side paths, with a strict CSP', async () => {
    for (const path of ['/console/', '/console/callback?code=x&state=y&iss=z', '/console/commits/abc']) {
      const res = await rawGet(base, path);
      assert.equal(res.status, 200, path);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.equal(res.headers['content-security-policy'], consoleCsp);
      assert.match(consoleCsp, /script-src 'self';/);
      assert.doesNotMatch(consoleCsp, /unsafe-inline|unsafe-eval/);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['referrer-policy'], 'same-origin');
      assert.equal(res.headers['cache-control'], 'no-cache');
      assert.match(res.body, /<script type="module" src="\/console\/assets\/main-[A-Z0-9]+\.js" integrity="sha384-/);
      assert.doesNotMatch(res.body, /<script>|style=/, 'no inline script or style');
    }
    const bare = await rawGet(base, '/console?x=1');
    assert.equal(bare.status, 308);
    assert.equal(bare.headers.location, '/console/?x=1');
  });

  it('serves the hashed assets with immutable caching', async () => {
    for (const name of Object.keys(build.assets)) {
      const res = await rawGet(base, `/console/assets/${name}`);
      assert.equal(res.status, 200, name);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.match(String(res.headers['content-type']), name.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(Buffer.byteLength(res.body), build.assets[name]);
    }
    assert.equal((await rawGet(base, '/console/assets/main-NOPE.js')).status, 404);
  });

  it('refuses every path that would leave the build', async () => {
    const attempts = [
      '/console/assets/../../package.json',
      '/console/assets/../../../package.json',
      '/console/assets/..%2F..%2Fpackage.json',
      '/console/assets/..%2f..%2f..%2fpackage.json',
      '/console/assets/%2e%2e/%2e%2e/package.json',
      '/console/assets/%2e%2e%2f%2e%2e%2fpackage.json',
      '/console/assets/..\\..\\package.json',
      '/console/assets/..%5c..%5cpackage.json',
      '/console/assets/%252e%252e%252fpackage.json',
      '/console/assets//etc/passwd',
      '/console/assets/%2Fetc%2Fpasswd',
      '/console/assets/index.html',
      '/console/assets/',
      '/console/../package.json',
      '/console/%2e%2e/package.json',
      '/console/assets/main.js%00.css',
    ];
    for (const path of attempts) {
      const res = await rawGet(base, path);
      assert.ok(res.status === 404 || res.status === 400, `${path}: ${res.status}`);
      assert.ok(!res.body.includes(secret), `${path} reached a file outside the build`);
      assert.ok(!res.body.includes('passwd') || res.body.includes('Not found') || res.body.includes('No such'), path);
      assert.ok(!/root:x:0:0/.test(res.body), path);
    }
  });
});
