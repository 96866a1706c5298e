// An https front for a test's platform: what a deployment's TLS terminator is, on loopback, with a
// certificate made for the test by openssl. An authorization server that takes client ID metadata
// documents fetches them only from https URLs, so the platform's must be on https.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';

export interface TlsFront {
  url: string;
  /** A fetch that trusts the front's certificate (and only it, beyond the usual roots). */
  fetch: typeof fetch;
  /** Requests the front passed on, by path. */
  paths: string[];
  close(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1, made now. */
function certificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tls-front-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' }); // prettier-ignore
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Listens on `port` (https) and passes every request on to `target` (http), headers as they came. */
export async function startTlsFront(port: number, target: string): Promise<TlsFront> {
  const { key, cert } = certificate();
  const paths: string[] = [];
  const server: Server = createServer({ key, cert }, (req, res) => {
    paths.push(req.url ?? '');
    const upstream = httpRequest(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const agent = new Agent({ connect: { ca: cert } });
  const trusting = ((url: string | URL, init: RequestInit = {}) =>
    undiciFetch(url, { ...(init as object), dispatcher: agent } as never)) as unknown as typeof fetch;
  return {
    url: `https://127.0.0.1:${port}`,
    fetch: trusting,
    paths,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await agent.close();
    },
  };
}
