import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The rendered API reference at /docs: Swagger UI from the installed swagger-ui-dist package (nothing
 * from a CDN), under a CSP with no inline script or style and no eval. Swagger UI sets styles through
 * the DOM (allowed), draws icons from data: URIs in its stylesheet, and fetches the document (and,
 * with "Try it out", the API) from this origin and the configured public URL only.
 */
/** `apiUri`: the server the document names, which "Try it out" calls (this origin, unless the API is reached by another name). */
export const referenceCsp = (apiUri: string): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${new URL(apiUri).origin}`,
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');

export const referencePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title>
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/** The page's own script, a file (the CSP allows no inline script): Swagger UI on /openapi.json. */
const initScript = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

export interface ReferenceAsset {
  body: Buffer;
  type: string;
}

/** The only files served under /docs/, by name: no request path reaches the file system. */
const packaged: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

let assets: Promise<Map<string, ReferenceAsset>> | undefined;

/** Swagger UI's files, read from node_modules into memory once (a failed read is tried again next time). */
export function referenceAssets(): Promise<Map<string, ReferenceAsset>> {
  if (!assets) {
    const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    assets = Promise.all(
      Object.entries(packaged).map(async ([name, type]) => [name, { body: await readFile(join(dir, name)), type }] as const),
    ).then((entries) => new Map([...entries, ['init.js', { body: Buffer.from(initScript), type: 'text/javascript; charset=utf-8' }]]));
    assets.catch(() => (assets = undefined));
  }
  return assets;
}
