// Builds the web console (web/console/, Preact + TSX) into static files with esbuild's JS API:
// `<outDir>/assets/<name>-<hash>.{js,css}` (content-hashed, so served with immutable caching) and
// `<outDir>/index.html` naming them. Called by `npm start` (scripts/dev.ts), once by `npm test`
// (test/run.ts), and by the API at startup when CONSOLE_ASSETS_DIR names no build.
import { createHash } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { escapeHtml } from '../kernel/html.js';

/** The console's source: one entry point, everything else reached from it. */
export const consoleSource = resolve(import.meta.dirname, '../../web/console');

export interface ConsoleBuild {
  outDir: string;
  /** The hashed asset files, by name, with their size in bytes. */
  assets: Record<string, number>;
  /** How long the build took, in milliseconds. */
  ms: number;
}

const sri = (bytes: Uint8Array) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;

export async function buildConsole(outDir: string): Promise<ConsoleBuild> {
  const started = performance.now();
  const assetsDir = join(outDir, 'assets');
  const result = await build({
    entryPoints: [join(consoleSource, 'main.tsx')],
    outdir: assetsDir,
    entryNames: '[name]-[hash]',
    // Code loaded on demand (the MCP Apps viewer host) goes in its own chunks, fetched by import().
    splitting: true,
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome120', 'firefox120', 'safari17'],
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(consoleSource, 'tsconfig.json'),
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
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
  // index.html last and by rename: a reader sees the old page or the new one, never half of one, and
  // never one naming assets not yet written.
  const temporary = join(outDir, `.index-${process.pid}-${Date.now()}.html`);
  await writeFile(temporary, html);
  await rename(temporary, join(outDir, 'index.html'));
  return { outDir, assets, ms: Math.round(performance.now() - started) };
}
