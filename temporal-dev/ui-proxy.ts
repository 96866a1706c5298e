// The dev server's Web UI, served on the port people open, with one change: its settings tell the UI to
// include cross-origin credentials on its codec calls. The dev server's CLI sets the codec endpoint
// (`--ui-codec-endpoint`) but has no flag for that switch, so without it the UI calls the platform's
// /codec/session without the signed-in person's cookie, gets 401, and shows "Codec Server could not
// connect" until the operator turns the switch on by hand (issue #30). Everything else passes through.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** The UI's settings call; its `Codec` block is what the UI's codec calls follow (unless a person overrides it). */
const settingsPath = '/api/v1/settings';
/** Nothing here waits for ever: an upstream that does not answer in time is a 502. */
const upstreamTimeoutMs = 30_000;
const maxSettingsBytes = 1024 * 1024;

export interface UiProxy {
  close(): Promise<void>;
}

/** Settings with `Codec.IncludeCredentials` on, when a codec endpoint is set; anything else unchanged. */
export function withCredentials(body: string): string {
  let settings: unknown;
  try {
    settings = JSON.parse(body);
  } catch {
    return body;
  }
  const codec = (settings as { Codec?: { Endpoint?: unknown; IncludeCredentials?: unknown } } | null)?.Codec;
  if (!codec || typeof codec.Endpoint !== 'string' || codec.Endpoint === '') return body;
  codec.IncludeCredentials = true;
  return JSON.stringify(settings);
}

function forward(req: IncomingMessage, res: ServerResponse, upstreamPort: number): void {
  const isSettings = req.method === 'GET' && (req.url ?? '').split('?')[0] === settingsPath;
  const headers = { ...req.headers, ...(isSettings ? { 'accept-encoding': 'identity' } : {}) };
  const upstream = request(
    { host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers, timeout: upstreamTimeoutMs },
    (answer) => {
      if (!isSettings || answer.statusCode !== 200) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      answer.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxSettingsBytes) answer.destroy(new Error('settings too large'));
        else chunks.push(chunk);
      });
      answer.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
      answer.on('end', () => {
        const body = Buffer.from(withCredentials(Buffer.concat(chunks).toString('utf8')));
        const { 'content-length': _length, 'transfer-encoding': _encoding, ...rest } = answer.headers;
        res.writeHead(200, { ...rest, 'content-length': body.length });
        res.end(body);
      });
    },
  );
  upstream.on('timeout', () => upstream.destroy(new Error('the Web UI did not answer in time')));
  upstream.on('error', () =>
    res.headersSent ? res.destroy() : res.writeHead(502, { 'content-type': 'text/plain' }).end('Temporal Web UI unavailable'),
  );
  req.pipe(upstream);
}

/** Serves the UI listening on 127.0.0.1:`upstreamPort` at 127.0.0.1:`port`. */
export async function startUiProxy(port: number, upstreamPort: number): Promise<UiProxy> {
  const server: Server = createServer((req, res) => forward(req, res, upstreamPort));
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolveListen());
  });
  return {
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
}
