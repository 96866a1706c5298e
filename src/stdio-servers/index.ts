import { homedir } from 'node:os';
import type { Config } from '../kernel/config/env.js';
import { StdioCatalog } from './catalog.js';
import { findBwrap, Sandbox } from './sandbox.js';

export { CatalogMismatch, StdioCatalog } from './catalog.js';
export type { Launch, SandboxedCommand } from './sandbox.js';

/**
 * What this process may do with stdio MCP servers: the operators' catalog and the sandbox, or why
 * stdio is off (disabled by configuration, or the sandbox cannot start here).
 */
export type StdioServers = { off: string; catalog: null; sandbox: null } | { off: null; catalog: StdioCatalog; sandbox: Sandbox };

const loaded = new Map<string, StdioServers>();

/**
 * Loaded once per process and configuration: the catalog files are read and the sandbox is tried
 * (a real launch, bounded) at start, so registration and calls can check synchronously. A broken
 * catalog stops the process, as any bad configuration does.
 */
export function stdioServers(config: Config): StdioServers {
  const key = JSON.stringify([
    config.ALLOW_STDIO_MCP_SERVERS,
    config.STDIO_CATALOG_PATHS,
    config.STDIO_SANDBOX_BWRAP ?? '',
    config.PLATFORM_DEV_DIR,
  ]);
  let servers = loaded.get(key);
  if (!servers) {
    servers = load(config);
    loaded.set(key, servers);
  }
  return servers;
}

function load(config: Config): StdioServers {
  if (!config.ALLOW_STDIO_MCP_SERVERS)
    return { off: 'stdio MCP servers are disabled on this deployment (ALLOW_STDIO_MCP_SERVERS=false).', catalog: null, sandbox: null };
  const catalog = StdioCatalog.load(
    config.STDIO_CATALOG_PATHS.split(',')
      .map((p) => p.trim())
      .filter(Boolean),
  );
  const bwrap = findBwrap(config.STDIO_SANDBOX_BWRAP);
  const sandbox = new Sandbox({
    bwrap,
    hidden: [homedir(), config.PLATFORM_DEV_DIR],
    path: process.env.PATH ?? '',
    workDir: process.cwd(),
  });
  const why = sandbox.probe();
  if (why)
    return {
      off: `stdio MCP servers are off on this deployment: every stdio server runs sandboxed, and the sandbox cannot start here: ${why}. Install bubblewrap (temporal-dev/install-sandbox.sh).`,
      catalog: null,
      sandbox: null,
    };
  return { off: null, catalog, sandbox };
}
