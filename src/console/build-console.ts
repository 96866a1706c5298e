// Builds the web console (web/console/, Preact + TSX) into static files with esbuild's JS API:
// `<outDir>/assets/<name>-<hash>.{js,css}` (content-hashed, so served with immutable caching) and
// `<outDir>/index.html` naming them; and, in the same build, the platform's MCP App page
// (web/console/viewer/app-viewer.tsx) as one self-contained HTML file, `<outDir>/apps/artifact-viewer.html`
// (src/mcp-server/apps/viewer-html.ts serves it). Called by `npm start` (scripts/dev.ts), once by
// `npm test` (test/run.ts), by the image's console stage (Dockerfile), and by the API at startup when
// CONSOLE_ASSETS_DIR names no build.
import { createHash } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { escapeHtml } from '../kernel/html.js';

/** The console's source: one entry point, everything else reached from it. */
export const consoleSource = resolve(import.meta.dirname, '../../web/console');

/** Where a build keeps the MCP App page, under its outDir. */
export const appPageFile = 'apps/artifact-viewer.html';

/** Stands in the built app page for the console's address, which the server fills per read (the page links there). */
export const appPageConsoleSlot = '__PLATFORM_CONSOLE__';

export interface ConsoleBuild {
  outDir: string;
  /** The hashed asset files, by name, with their size in bytes. */
  assets: Record<string, number>;
  /** The MCP App page's size in bytes (at appPageFile). */
  appPage: number;
  /** How long the build took, in milliseconds. */
  ms: number;
}

const sri = (bytes: Uint8Array) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;

const target = ['es2022', 'chrome120', 'firefox120', 'safari17'];

const appStyle = `
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0.75rem 1rem; color: #1d2433; }
  #app { display: flow-root; }
  h1 { font-size: 1.3rem; margin: 0 0 0.25rem; }
  .facts { margin: 0 0 0.75rem; color: #555; font-size: 0.9rem; }
  .type { font-family: ui-monospace, monospace; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f5f6f8; padding: 0.5rem 0.75rem; border-radius: 4px; }
  .markdown { overflow-wrap: anywhere; }
  figure { margin: 0; } img, video { max-width: 100%; } audio { width: 100%; }
  [role="alert"] { color: #a61b1b; }
`;

/** How the console and the app page are bundled alike: minified preact for browsers, kept in memory. */
const browserBundle = {
  bundle: true,
  minify: true,
  target,
  platform: 'browser',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  tsconfig: join(consoleSource, 'tsconfig.json'),
  legalComments: 'none',
  write: false,
  logLevel: 'silent',
} as const;

/**
 * The MCP App page: one self-contained HTML document, its script and style inline, that loads nothing
 * from anywhere (its `_meta.ui.csp` declares no domain, so hosts allow it no network either).
 */
export async function buildAppPage(): Promise<string> {
  const result = await build({
    entryPoints: [join(consoleSource, 'viewer/app-viewer.tsx')],
    ...browserBundle,
    format: 'iife',
  });
  // Inline in a <script>: a `</script` in the code (a string literal) must not end the element.
  const script = result.outputFiles[0]!.text.replace(/<\/(script)/gi, '<\\/$1');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="platform-console" content="${appPageConsoleSlot}">
<title>Artifact</title>
<style>${appStyle}</style>
</head>
<body>
<main id="app"></main>
<script>${script}</script>
</body>
</html>
`;
}

/** Writes a file whole: a reader sees the old file or the new one, never half of one. */
async function replaceFile(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}-${Date.now()}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

export async function buildConsole(outDir: string): Promise<ConsoleBuild> {
  const started = performance.now();
  const assetsDir = join(outDir, 'assets');
  // The app page is built alongside: one build, one output, so a deployment has both or neither.
  const appPage = buildAppPage();
  appPage.catch(() => {}); // awaited below; a failure of the console's own build is reported first
  const result = await build({
    entryPoints: [join(consoleSource, 'main.tsx')],
    outdir: assetsDir,
    entryNames: '[name]-[hash]',
    // Code loaded on demand (the MCP Apps viewer host) goes in its own chunks, fetched by import().
    splitting: true,
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    ...browserBundle,
    format: 'esm',
  });
  await mkdir(assetsDir, { recursive: true });
  const assets: Record<string, number> = {};
  let script = '';
  let style = '';
  for (const file of result.outputFiles) {
    const name = basename(file.path);
    assets[name] = file.contents.byteLength;
    // Content-hashed: a file of this name always has these bytes, so a concurrent build writes the same.
    await writeFile(file.path, file.contents);
    const tag = `/console/assets/${escapeHtml(name)}`;
    if (name.endsWith('.js') && !name.startsWith('chunk-'))
      script = `<script type="module" src="${tag}" integrity="${sri(file.contents)}"></script>`;
    if (name.endsWith('.css')) style = `<link rel="stylesheet" href="${tag}" integrity="${sri(file.contents)}">`;
  }
  if (!script) throw new Error('the console build produced no script');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Platform console</title>
${style}
${script}
</head>
<body>
<div id="app"><noscript>The console needs JavaScript.</noscript></div>
</body>
</html>
`;
  const page = await appPage;
  await mkdir(join(outDir, dirname(appPageFile)), { recursive: true });
  await replaceFile(join(outDir, appPageFile), page);
  // index.html last and by rename: a reader never sees one naming assets not yet written.
  await replaceFile(join(outDir, 'index.html'), html);
  return { outDir, assets, appPage: Buffer.byteLength(page), ms: Math.round(performance.now() - started) };
}
