import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Config } from '../../kernel/config/env.js';
import { problems } from '../../kernel/errors/problem.js';
import { buildConsole, type ConsoleBuild } from '../../console/build-console.js';
import { viewerSandboxCsp, viewerSandboxPage } from '../../console/viewer-sandbox.js';
import type { AppContext } from '../context.js';
import type { RouteDef } from '../route.js';

/**
 * The console's pages may load scripts, styles and data from this origin only: no inline script or
 * style, no eval, no plugin, no framing, no <base>, forms post here only.
 */
export const consoleCsp =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' data: blob:; frame-src 'self' blob:; connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const assetTypes: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  map: 'application/json; charset=utf-8',
};
/** What a built asset is called: `<name>-<hash>.<ext>`, one path segment, no dot in front. */
const assetName = /^[A-Za-z0-9_-]+\.(js|css|map)$/;

export interface ConsoleFiles {
  index: Buffer;
  /** Every built asset, by file name: the only files served, so no request path reaches the file system. */
  assets: Map<string, { body: Buffer; type: string }>;
  /** The build this process made, when CONSOLE_ASSETS_DIR named none. */
  built?: ConsoleBuild;
}

const loading = new Map<string, Promise<ConsoleFiles>>();

async function load(dir: string, built?: ConsoleBuild): Promise<ConsoleFiles> {
  const index = await readFile(join(dir, 'index.html'));
  const assets = new Map<string, { body: Buffer; type: string }>();
  for (const entry of await readdir(join(dir, 'assets'), { withFileTypes: true })) {
    const ext = assetName.exec(entry.name)?.[1];
    if (!entry.isFile() || !ext) continue;
    assets.set(entry.name, { body: await readFile(join(dir, 'assets', entry.name)), type: assetTypes[ext]! });
  }
  return { index, assets, built };
}

/**
 * The console's files, read into memory once: from CONSOLE_ASSETS_DIR (built by `npm start` or the
 * test runner), or else built by this process into `<PLATFORM_DEV_DIR>/console` first.
 */
export function consoleFiles(config: Config): Promise<ConsoleFiles> {
  const given = config.CONSOLE_ASSETS_DIR;
  const dir = resolve(given ?? join(config.PLATFORM_DEV_DIR, 'console'));
  let files = loading.get(dir);
  if (!files) {
    files = given ? load(dir) : buildConsole(dir).then((built) => load(dir, built));
    files.catch(() => loading.delete(dir)); // a failed load is tried again by the next request
    loading.set(dir, files);
  }
  return files;
}

function secure(ctx: AppContext): void {
  ctx.set('Content-Security-Policy', consoleCsp);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
}

/** The viewer's frame: its own CSP, framed by the console only, and opaque-origin by the console's sandbox attribute. */
function serveSandbox(ctx: AppContext): void {
  ctx.set('Content-Security-Policy', viewerSandboxCsp);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'SAMEORIGIN');
  ctx.set('Cache-Control', 'no-cache');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = viewerSandboxPage;
}

async function serve(ctx: AppContext): Promise<void> {
  const rest = ctx.path.slice('/console/'.length);
  if (rest === 'sandbox') return serveSandbox(ctx);
  const files = await consoleFiles(ctx.services.config);
  if (rest.startsWith('assets/')) {
    // Looked up by the name exactly as sent: `..`, `%2e%2e`, `%2f` or a second segment match nothing.
    const asset = files.assets.get(rest.slice('assets/'.length));
    if (!asset) throw problems.notFound('console file');
    secure(ctx);
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.type = asset.type;
    ctx.body = asset.body;
    return;
  }
  // Any other path under /console/ is the client's own (/console/callback, later /console/commits/…):
  // the same page, which reads location itself. A dot segment is no such path.
  if (rest.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) throw problems.notFound('console page');
  secure(ctx);
  ctx.set('Cache-Control', 'no-cache');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = files.index;
}

/** The web console (web/console/), on the API's own origin: its page and hashed assets, public like any page. */
export const consoleRoutes: RouteDef[] = [
  {
    // Matches /console and /console/ (the router takes a trailing slash as the same path); the callback
    // carries the authorization server's parameters (code, state, iss, error…), so any query is taken.
    method: 'get',
    path: '/console',
    access: 'public',
    doc: { summary: 'The web console', status: 308, responseDescription: 'To /console/' },
    query: 'foreign',
    handler: (ctx) => {
      if (ctx.path === '/console/') return serve(ctx);
      ctx.status = 308;
      ctx.set('Location', `/console/${ctx.querystring ? `?${ctx.querystring}` : ''}`);
    },
  },
  {
    method: 'get',
    path: '/console/*rest',
    access: 'public',
    query: 'foreign',
    doc: { summary: "The web console's pages and assets", produces: 'text/html' },
    handler: serve,
  },
];
