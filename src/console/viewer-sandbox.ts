// The frame that hosts an MCP Apps viewer (SPEC §4.7), served at /console/sandbox. The console loads
// it in <iframe sandbox="allow-scripts">: without allow-same-origin its origin is opaque, so a viewer
// cannot read the console's DOM, storage or cookies, nor call the API as the person. This page only
// says it is ready (ui/notifications/sandbox-proxy-ready) and, once, replaces itself with the HTML the
// host sends (ui/notifications/sandbox-resource-ready), keeping its doctype (and so its rendering mode). The response's CSP stays in force for the
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

/**
 * Runs first in the viewer's document (it is written ahead of the viewer's HTML). No CSP directive
 * that Chromium enforces covers WebRTC, whose ICE traffic (STUN, TURN) reaches any host: the window
 * loses the constructors, and a frame the viewer adds (srcdoc or about:blank frames are not fetched,
 * so frame-src does not stop them, and each would have the constructors again) is removed as soon
 * as it is attached, before it loads.
 */
const guard = `(() => {
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCRtpSender', 'RTCRtpReceiver', 'RTCIceTransport']) {
    try { delete window[name]; } catch {}
  }
  const framed = /^(IFRAME|FRAME|OBJECT|EMBED|FENCEDFRAME|PORTAL)$/;
  const sweep = (node) => {
    if (node.nodeType !== 1) return;
    if (framed.test(node.nodeName)) return node.remove();
    for (const inner of node.querySelectorAll('iframe, frame, object, embed, fencedframe, portal')) inner.remove();
  };
  new MutationObserver((records) => { for (const r of records) r.addedNodes.forEach(sweep); }).observe(document, { childList: true, subtree: true });
})();`;

const bootstrap = `(() => {
  let loaded = false;
  addEventListener('message', (event) => {
    const m = event.data;
    if (loaded || event.source !== parent || !m || m.jsonrpc !== '2.0' || m.method !== 'ui/notifications/sandbox-resource-ready') return;
    if (typeof m.params?.html !== 'string') return;
    loaded = true;
    // The viewer's doctype goes first, ahead of the guard: a document whose first token is not a
    // doctype is in quirks mode, where the body fills the frame and a viewer sizing itself to its
    // body chases the frame's height (issue #30).
    const html = m.params.html;
    const doctype = /^\\s*(<!doctype[^>]*>)/i.exec(html);
    document.open();
    if (doctype) document.write(doctype[1]);
    document.write('<script>' + ${JSON.stringify(guard)} + '</scr' + 'ipt>');
    document.write(doctype ? html.slice(doctype[0].length) : html);
    document.close();
  });
  parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, '*');
})();`;

export const viewerSandboxPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Viewer</title></head>
<body><script>${bootstrap}</script></body></html>
`;
