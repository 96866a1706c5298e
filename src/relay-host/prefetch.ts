import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fetchEnv } from './fetch-env.js';
import { installStep } from './install-step.js';
import type { Launcher } from './launch.js';

/**
 * npx servers with the network off (the policy's default): each package gets an npm cache of its own
 * in the relay's state folder (so one server cannot alter another's installed code), filled once per
 * relay process by `npm exec --package=<spec>` in the sandbox with the network on; the server itself
 * then runs with the network as the policy says, from that cache (`prefer-offline`).
 */
export class NpxCaches {
  private readonly filled = new Map<string, Promise<void>>();

  constructor(private readonly o: { stateDir: string; cwd: string; launcher: Launcher; log: (line: string) => void }) {}

  /** The env and bind an npx launch of `pkg` runs with; `fetch` fills the cache first (not with --no-install). */
  async prepare(
    pkg: string,
    fetch: boolean,
    network: boolean,
  ): Promise<{ env: Record<string, string>; binds: { dir: string; write: boolean }[] }> {
    const cache = join(this.o.stateDir, 'npx', createHash('sha256').update(pkg).digest('hex').slice(0, 24));
    mkdirSync(cache, { recursive: true });
    const env: Record<string, string> = { npm_config_cache: cache, npm_config_update_notifier: 'false' };
    if (fetch) {
      let p = this.filled.get(pkg);
      if (!p) {
        const args = ['exec', '--yes', `--package=${pkg}`, '--', 'node', '-e', ''];
        // From the relay's folder, as the server will run: a package its node_modules holds is found there, nothing is fetched.
        p = installStep(this.o.launcher, this.o.log, 'npm', args, [cache], { ...fetchEnv(), ...env }, false, this.o.cwd).catch((err) => {
          this.filled.delete(pkg);
          // Not fatal: the server may still start from what is cached; if not, its own failure says why.
          this.o.log(`could not fetch ${pkg}: ${(err as Error).message}`);
        });
        this.filled.set(pkg, p);
      }
      await p;
    }
    if (!network) env.npm_config_prefer_offline = 'true';
    return { env, binds: [{ dir: cache, write: true }] };
  }
}
