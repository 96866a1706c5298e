import { execFile, spawn } from 'node:child_process';
import { chmodSync } from 'node:fs';
import type { Launcher } from './launch.js';

/** A repository or package that could not be fetched or installed. */
export class InstallError extends Error {}

const installTimeoutMs = 10 * 60_000;
const asRoot = process.getuid?.() === 0;

/**
 * One install step (npm install, a package prefetch) in the sandbox, with the network on and only
 * `writable` folders writable (the first is its working folder unless `cwd` says); bounded in time. `anyExit`: a step
 * whose exit status says nothing (a server started only to fill a cache) succeeds unless killed.
 */
export async function installStep(
  launcher: Launcher,
  log: (line: string) => void,
  command: string,
  args: string[],
  writable: string[],
  env: Record<string, string>,
  anyExit = false,
  cwd = writable[0],
): Promise<void> {
  // A relay run as root starts servers as an unprivileged user (the Sandbox drops to one): it must be able to write there.
  if (asRoot) for (const d of writable) chmodSync(d, 0o777);
  const binds = writable.map((dir) => ({ dir, write: true }));
  const launched = launcher.command({ command, args, network: true, binds, env, ...(cwd ? { cwd } : {}) });
  log(`installing in ${launched.cwd}: ${command} ${args.join(' ')}`);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(launched.command, launched.args, { env: launched.env, cwd: launched.cwd, stdio: ['ignore', 'ignore', 'pipe'] });
      let tail = '';
      child.stderr.on('data', (c: Buffer) => void (tail = (tail + c.toString('utf8')).slice(-4000)));
      const timer = setTimeout(() => child.kill('SIGKILL'), installTimeoutMs);
      child.once('error', (e) => (clearTimeout(timer), reject(new InstallError(`${command} could not start: ${e.message}`))));
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0 || (anyExit && signal === null)) resolve();
        else reject(new InstallError(`${command} ${args[0]} failed (${signal ?? `exit ${code}`}): ${tail.trim().slice(-2000)}`));
      });
    });
  } finally {
    launched.cleanup();
    // As root, each launch is another unprivileged uid: what this one wrote must stay writable for the next.
    if (asRoot) await new Promise((r) => execFile('chmod', ['-R', 'a+rwX', ...writable], { timeout: 5 * 60_000 }, r));
  }
}
