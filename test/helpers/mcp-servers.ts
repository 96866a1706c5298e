// Real third-party MCP servers (and one plain HTTP server) started for a test file, on loopback.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { freePort } from '../../temporal-dev/engines.js';
import { untilReady } from './processes.js';
import type { Api } from './http.js';

export const mcpServerType = 'application/vnd.platform.mcp-server+json';

/** Registers an MCP server artifact (`content`: transport, auth, …) in a workspace; returns its id. */
export async function registerServer(api: Api, workspace: string, content: unknown, title = 'server'): Promise<string> {
  const r = await api.post('/artifacts', {
    title,
    content_type: mcpServerType,
    content: JSON.stringify(content),
    collection_id: workspace,
  });
  assert.equal(r.status, 201, r.text);
  return r.body.id;
}

/** The project's own content-type server (examples/note-type-server), over stdio. */
export const noteTypeServer = { transport: { type: 'stdio', command: 'node', args: ['examples/note-type-server/server.mjs'] } };

export interface Started {
  url: string;
  port: number;
  close(): Promise<void>;
}

async function startUntil(command: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  await untilReady(child, ready, command, { timeoutMs: 30_000 });
  return child;
}

const stop = (child: ChildProcess) => () =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/** `@modelcontextprotocol/server-everything` over Streamable HTTP (its /mcp endpoint). */
export async function everythingHttp(): Promise<Started> {
  const port = await freePort();
  const child = await startUntil(
    process.execPath,
    ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'streamableHttp'],
    { PORT: String(port) },
    /listening on port/,
  );
  return { url: `http://127.0.0.1:${port}/mcp`, port, close: stop(child) };
}

/**
 * `@modelcontextprotocol/server-everything` of the 2025 line (2025.7.1 on SDK 1.13.3: protocol 2025-06-18
 * at most, installed by temporal-dev/install-mcp-servers.sh), over Streamable HTTP (/mcp) or the older
 * HTTP+SSE transport (/sse).
 */
export async function everything2025Http(transport: 'streamableHttp' | 'sse' = 'streamableHttp'): Promise<Started> {
  const entry = resolve(
    process.env.PLATFORM_DEV_DIR ?? '.dev',
    'npm/server-everything-2025/node_modules/@modelcontextprotocol/server-everything/dist/index.js',
  );
  assert.ok(existsSync(entry), `${entry} is missing: run temporal-dev/install-mcp-servers.sh`);
  const port = await freePort();
  const child = await startUntil(
    process.execPath,
    [entry, transport],
    { PORT: String(port) },
    transport === 'sse' ? /running on port/ : /listening on port/,
  );
  return { url: `http://127.0.0.1:${port}/${transport === 'sse' ? 'sse' : 'mcp'}`, port, close: stop(child) };
}

/** Python's own http.server: a real server that answers every POST with 501. */
export async function pythonHttpServer(): Promise<Started> {
  const port = await freePort();
  const child = await startUntil('python3', ['-u', '-m', 'http.server', String(port), '--bind', '127.0.0.1'], {}, /Serving HTTP/);
  return { url: `http://127.0.0.1:${port}/`, port, close: stop(child) };
}

/** The project's note server (examples/note-type-server) over Streamable HTTP on `port`, with `env` (PLATFORM_URL, NOTE_SERVER_CLIENT_ID). */
export async function noteTypeServerHttp(port: number, env: Record<string, string>): Promise<Started> {
  const child = await startUntil(
    process.execPath,
    ['examples/note-type-server/server.mjs', '--http'],
    { ...env, PORT: String(port) },
    /listening on/,
  );
  return { url: `http://127.0.0.1:${port}/mcp`, port, close: stop(child) };
}
