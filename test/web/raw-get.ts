// The console tests' raw GET (test/web/console.test.ts against the running platform, and
// console-route.unit.test.ts against the console routes alone): the request path goes out exactly as
// written, with no URL normalisation of `..` or percent-escapes on the way, so that a traversal
// attempt reaches the server as an attacker would send it.
import { request } from 'node:http';

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function rawGet(base: string, path: string, timeoutMs = 10_000): Promise<RawReply> {
  const { hostname, port } = new URL(base);
  return new Promise((done, fail) => {
    const req = request({ hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`GET ${path}: no answer in ${timeoutMs} ms`)));
    req.on('error', fail);
    req.end();
  });
}
