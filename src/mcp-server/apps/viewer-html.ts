import { join } from 'node:path';
import { build } from 'esbuild';
import { consoleSource } from '../../console/build-console.js';

// The built-in artifact viewer's page (web/console/viewer/app-viewer.tsx), bundled once per process on
// first read: one self-contained HTML document, its script and style inline, that loads nothing from
// anywhere (its `_meta.ui.csp` declares no domain, so hosts allow it no network either).

/** Stands in the bundled page for the console's address, filled per read (the page links there). */
const consoleSlot = '__PLATFORM_CONSOLE__';

/** A value safe inside a double-quoted HTML attribute. */
const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const style = `
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

async function bundle(): Promise<string> {
  const result = await build({
    entryPoints: [join(consoleSource, 'viewer/app-viewer.tsx')],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2022', 'chrome120', 'firefox120', 'safari17'],
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(consoleSource, 'tsconfig.json'),
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  // Inline in a <script>: a `</script` in the code (a string literal) must not end the element.
  const script = result.outputFiles[0]!.text.replace(/<\/(script)/gi, '<\\/$1');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="platform-console" content="${consoleSlot}">
<title>Artifact</title>
<style>${style}</style>
</head>
<body>
<main id="app"></main>
<script>${script}</script>
</body>
</html>
`;
}

let built: Promise<string> | null = null;

/**
 * The viewer's HTML, bundled on first use and then kept (a failed bundle is retried on the next read),
 * with the console's address under `publicBase` (the API's base as the client reached it), where the
 * page sends a person to see an artifact in its type's own viewer. Without a base, the page gives no link.
 */
export async function artifactViewerHtml(publicBase?: string): Promise<string> {
  built ??= bundle().catch((err: unknown) => {
    built = null;
    throw err;
  });
  const consoleUri = publicBase ? `${publicBase.replace(/\/+$/, '')}/console/` : '';
  return (await built).replace(consoleSlot, () => attribute(consoleUri));
}
