// The note viewer: a standalone MCP Apps page (SEP-1865, protocol 2026-01-26) served as the resource
// `ui://note-type-server/note.html`. It speaks JSON-RPC over postMessage with its host by hand, so it
// needs no bundler: ui/initialize, then ui/notifications/initialized; it shows the artifact that
// ui/notifications/tool-result carries, then asks the host to call `describe_note` (tools/call).
// Everything it shows is set as text, never as markup.
export const VIEWER_URI = 'ui://note-type-server/note.html';

const script = String.raw`
(() => {
  const pending = new Map();
  let nextId = 1;
  const send = (message) => window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ id, method, params });
    });
  const text = (id, value) => (document.getElementById(id).textContent = value);

  async function show(result) {
    const artifact = JSON.parse(result.content[0].text);
    const note = typeof artifact.content === 'string' ? JSON.parse(artifact.content) : artifact.content;
    text('heading', note.heading || artifact.title);
    text('body', note.body);
    text('tags', (note.tags || []).map((t) => '#' + t).join(' '));
    text('caller', 'Asking the server who this is for…');
    try {
      const described = await request('tools/call', { name: 'describe_note', arguments: { artifact: { id: artifact.id, content: artifact.content } } });
      const facts = described.structuredContent || JSON.parse(described.content[0].text);
      text('words', facts.words + ' words, ' + facts.tags + ' tags');
      text('caller', facts.caller.verified ? 'Shown to ' + facts.caller.person + ' (delegation verified)' : 'Caller not verified: ' + facts.caller.reason);
    } catch (err) {
      text('caller', 'The host refused the call: ' + (err.message || err));
    }
  }

  window.addEventListener('message', (event) => {
    const message = event.data;
    if (event.source !== window.parent || !message || message.jsonrpc !== '2.0') return;
    if (message.method === undefined && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      return message.error ? reject(new Error(message.error.message)) : resolve(message.result);
    }
    if (message.method === 'ui/notifications/tool-result') return void show(message.params);
    if (message.method === 'ui/resource-teardown') return send({ id: message.id, result: {} });
    if (message.id !== undefined && message.method) send({ id: message.id, error: { code: -32601, message: 'Method not found' } });
  });

  request('ui/initialize', { protocolVersion: '2026-01-26', appInfo: { name: 'note-viewer', version: '1.0.0' }, appCapabilities: {} }).then(
    () => {
      send({ method: 'ui/notifications/initialized', params: {} });
      // The host sizes the frame to the page (ui/notifications/size-changed). What is reported is the
      // content's own height (the wrapper's, whose height is auto, plus the page's margins), which the
      // frame's height does not change, and only when it changes: never something that grows with the
      // frame, or host and viewer would chase each other.
      const content = document.getElementById('content');
      let reported = 0;
      const size = () => {
        const margin = parseFloat(getComputedStyle(document.body).marginBottom) || 0;
        const height = Math.ceil(content.getBoundingClientRect().bottom + window.scrollY + margin);
        if (height === reported) return;
        reported = height;
        send({ method: 'ui/notifications/size-changed', params: { height } });
      };
      new ResizeObserver(size).observe(content);
    },
    (err) => text('caller', 'The host did not initialize the viewer: ' + err.message),
  );
})();
`;

export const VIEWER_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Note</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0.75rem 1rem; }
  /* flow-root: the first and last paragraphs' margins stay inside, so its height is the content's. */
  #content { display: flow-root; }
  h1 { font-size: 1.3rem; margin: 0 0 0.5rem; }
  #body { white-space: pre-wrap; }
  #tags { color: #8a6d00; }
  #words, #caller { font-size: 0.9rem; color: #555; }
</style>
</head>
<body>
<div id="content">
<article>
  <h1 id="heading">Loading the note…</h1>
  <p id="body"></p>
  <p id="tags"></p>
</article>
<p id="words"></p>
<p id="caller" role="status"></p>
</div>
<script>${script}</script>
</body>
</html>
`;
