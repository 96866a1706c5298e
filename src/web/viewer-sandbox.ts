// The frame that hosts an MCP Apps viewer (SPEC §4.7), served at /console/sandbox. The console loads
// it in <iframe sandbox="allow-scripts">: without allow-same-origin its origin is opaque, so a viewer
// cannot read the console's DOM, storage or cookies, nor call the API as the person. This page only
// says it is ready (ui/notifications/sandbox-proxy-ready) and, once, replaces itself with the HTML the
// host sends (ui/notifications/sandbox-resource-ready). The response's CSP stays in force for the
// viewer: inline script and style, images and media from data: and blob:, and no network at all.

export const viewerSandboxCsp = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  'img-src data: blob:',
  'media-src data: blob:',
  'font-src data:',
  "connect-src 'none'",
  "frame-src 'none'",
  "worker-src 'none'",
  "object-src 'none'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join('; ');

const bootstrap = `(() => {
  let loaded = false;
  addEventListener('message', (event) => {
    const m = event.data;
    if (loaded || event.source !== parent || !m || m.jsonrpc !== '2.0' || m.method !== 'ui/notifications/sandbox-resource-ready') return;
    if (typeof m.params?.html !== 'string') return;
    loaded = true;
    document.open();
    document.write(m.params.html);
    document.close();
  });
  parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, '*');
})();`;

export const viewerSandboxPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Viewer</title></head>
<body><script>${bootstrap}</script></body></html>
`;
