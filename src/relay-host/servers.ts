import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { RelayCall, RunningServer } from '../relay-protocol/wire.js';
import type { Launcher } from './launch.js';
import { relayPackageVersion } from './config.js';

/** A pooled stdio session with one server (one server id, revision, transport and env). */
export interface PooledServer {
  key: string;
  client: Client;
  info: RunningServer;
  lastUsed: number;
  inFlight: number;
  dead: boolean;
  stderrTail(): string;
  close(): Promise<void>;
}

/** What to start: the launch the policy allowed (a stdio command, or a prepared repository's). */
export interface ServerLaunch {
  command: string;
  args: string[];
  binds: { dir: string; write: boolean }[];
  env: Record<string, string>;
  network: boolean;
  commit?: string;
}

export const idleMs = 10 * 60_000;

export function poolKey(server: RelayCall['server']): string {
  const env = createHash('sha256')
    .update(JSON.stringify(Object.entries(server.env).sort(([a], [b]) => (a < b ? -1 : 1))))
    .digest('hex');
  return JSON.stringify([server.id, server.revision, server.transport, env]);
}

/**
 * The relay's stdio sessions (issue #34): one per server, revision, transport and env, shared by the
 * calls that need it, closed after ten idle minutes, dropped as soon as its process dies (the next call
 * starts a new one).
 */
export class ServerPool {
  private readonly servers = new Map<string, PooledServer>();
  private readonly opening = new Map<string, Promise<PooledServer>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly launcher: Launcher) {
    this.sweeper = setInterval(() => void this.sweep(), 60_000);
    this.sweeper.unref();
  }

  running(): RunningServer[] {
    return [...this.servers.values()].filter((s) => !s.dead).map((s) => s.info);
  }

  /** A live session for the call's server, opened with `launch()` when there is none. */
  async acquire(call: RelayCall, launch: () => Promise<ServerLaunch>): Promise<PooledServer> {
    const key = poolKey(call.server);
    const live = this.servers.get(key);
    if (live && !live.dead) return this.use(live);
    let p = this.opening.get(key);
    if (!p) {
      p = (async () => this.open(key, call, await launch()))().finally(() => this.opening.delete(key));
      this.opening.set(key, p);
    }
    return this.use(await p);
  }

  private use(s: PooledServer): PooledServer {
    s.inFlight++;
    s.lastUsed = Date.now();
    return s;
  }

  release(s: PooledServer) {
    s.inFlight = Math.max(0, s.inFlight - 1);
    s.lastUsed = Date.now();
  }

  private async open(key: string, call: RelayCall, launch: ServerLaunch): Promise<PooledServer> {
    const launched = this.launcher.command({
      command: launch.command,
      args: launch.args,
      network: launch.network,
      binds: launch.binds,
      env: { ...call.server.env, ...launch.env },
    });
    let tail = '';
    // The SDK adds HOME, PATH and the like from the relay's environment; the launch's own values replace them.
    const transport = new StdioClientTransport({
      command: launched.command,
      args: launched.args,
      env: launched.env,
      cwd: launched.cwd,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => void (tail = (tail + chunk.toString('utf8')).slice(-2000)));
    // As the platform's own client does (src/mcp-client/session.ts): 2026-07-28 with a server that offers
    // it through `server/discover` (probed on a short-lived second process), the 2025 handshake otherwise.
    const connectMs = Math.max(1000, Math.min(call.timeout_ms, 120_000));
    const client = new Client(
      { name: 'platform-relay', version: relayPackageVersion() },
      // A stdio server silent on the probe for 20 s is taken for a 2025 one (SDK: stdio silence is legacy).
      { capabilities: {}, versionNegotiation: { mode: 'auto', probe: { timeoutMs: Math.min(connectMs, 20_000) } } },
    );
    const server: PooledServer = {
      key,
      client,
      info: {
        server_id: call.server.id.slice(0, 200),
        revision: call.server.revision,
        label: `${call.server.title} (${launch.command})`.slice(0, 600),
        started_at: new Date().toISOString(),
        ...(launch.commit ? { commit: launch.commit } : {}),
      },
      lastUsed: Date.now(),
      inFlight: 0,
      dead: false,
      stderrTail: () => tail,
      close: async () => {
        server.dead = true;
        if (this.servers.get(key) === server) this.servers.delete(key);
        await client.close().catch(() => {});
        launched.cleanup();
      },
    };
    client.onclose = () => {
      server.dead = true;
      if (this.servers.get(key) === server) this.servers.delete(key);
      launched.cleanup();
    };
    try {
      await client.connect(transport, { timeout: connectMs });
    } catch (err) {
      await server.close();
      throw Object.assign(err instanceof Error ? err : new Error(String(err)), { stderrTail: tail, starting: true });
    }
    this.servers.set(key, server);
    return server;
  }

  private async sweep() {
    const now = Date.now();
    for (const s of [...this.servers.values()]) if (s.inFlight === 0 && now - s.lastUsed > idleMs) await s.close();
  }

  async closeAll() {
    clearInterval(this.sweeper);
    const all = [...this.servers.values()];
    await Promise.allSettled([...this.opening.values()].map((p) => p.then((s) => s.close())));
    await Promise.allSettled(all.map((s) => s.close()));
  }
}
