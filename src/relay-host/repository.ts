import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InstallError, installStep } from './install-step.js';
import type { Launcher } from './launch.js';
import { fetchEnv } from './fetch-env.js';
import { ownerRepoPattern } from './policy.js';

/**
 * The repository transport (issue #34): clone `<git-base>/<owner>/<name>`, resolve the ref to a commit
 * once and pin it (a branch that moves later does not move a running host), install by what the clone
 * holds, and give back the command that runs it. The install runs sandboxed too (with the network on,
 * the clone writable), since a package's install scripts are code of the repository's.
 */
export { InstallError };

const gitTimeoutMs = 5 * 60_000;

/** The official MCP registry's server.json, as much as the relay reads. */
const argument = z.looseObject({ type: z.string().optional(), name: z.string().optional(), value: z.string().optional() });
const serverJson = z.looseObject({
  packages: z
    .array(
      z.looseObject({
        registryType: z.string().optional(),
        identifier: z.string().optional(),
        packageArguments: z.array(argument).optional(),
        runtimeArguments: z.array(argument).optional(),
        environmentVariables: z.array(z.looseObject({ name: z.string() })).optional(),
      }),
    )
    .optional(),
});

export interface PreparedRepository {
  commit: string;
  dir: string;
  command: string;
  args: string[];
  /** Env keys the repository's server.json says the server expects. */
  envKeys: string[];
  /** Folders the run needs beyond the clone (uv's cache). */
  binds: { dir: string; write: boolean }[];
  env: Record<string, string>;
}

function git(args: string[], cwd?: string): Promise<string> {
  const safe = ['-c', 'protocol.file.allow=never', '-c', 'protocol.ext.allow=never', '-c', 'core.hooksPath=/dev/null'];
  return new Promise((resolve, reject) =>
    execFile(
      'git',
      [...safe, ...args],
      { cwd, timeout: gitTimeoutMs, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true' }, maxBuffer: 1 << 20 },
      (err, stdout, stderr) =>
        err ? reject(new InstallError(`git ${args[0]}: ${(stderr || err.message).trim().slice(-1000)}`)) : resolve(stdout.trim()),
    ),
  );
}

/** The arguments server.json fixes for a package: positional values, named `--flag value` pairs. */
function fixedArguments(args: z.infer<typeof argument>[] | undefined): string[] {
  return (args ?? []).flatMap((a) => {
    if (a.type === 'named' && a.name) return a.value !== undefined ? [a.name, a.value] : [a.name];
    return a.value !== undefined ? [a.value] : [];
  });
}

export class Repositories {
  private readonly busy = new Map<string, Promise<PreparedRepository>>();

  constructor(private readonly o: { stateDir: string; gitBase: string; launcher: Launcher; log: (line: string) => void }) {}

  private get pinsFile() {
    return join(this.o.stateDir, 'pins.json');
  }

  pins(): Record<string, string> {
    try {
      return z.record(z.string(), z.string()).parse(JSON.parse(readFileSync(this.pinsFile, 'utf8')));
    } catch {
      return {};
    }
  }

  private pin(key: string, commit: string) {
    const pins = { ...this.pins(), [key]: commit };
    const tmp = `${this.pinsFile}.${randomBytes(4).toString('hex')}`;
    writeFileSync(tmp, `${JSON.stringify(pins, null, 2)}\n`);
    renameSync(tmp, this.pinsFile);
  }

  /** Clone, pin, install (once per commit): one at a time per repository and ref. */
  prepare(ownerRepo: string, ref: string): Promise<PreparedRepository> {
    const key = `${ownerRepo}@${ref}`;
    let p = this.busy.get(key);
    if (!p) {
      p = this.doPrepare(ownerRepo, ref).finally(() => this.busy.delete(key));
      this.busy.set(key, p);
    }
    return p;
  }

  private async doPrepare(ownerRepo: string, ref: string): Promise<PreparedRepository> {
    if (!ownerRepoPattern.test(ownerRepo) || ownerRepo.includes('..')) throw new InstallError(`${ownerRepo} is not owner/name`);
    if (ref.startsWith('-') || !ref) throw new InstallError(`ref ${ref} is not valid`);
    const [owner, name] = ownerRepo.split('/') as [string, string];
    const parent = join(this.o.stateDir, 'repos', owner, name);
    mkdirSync(parent, { recursive: true });
    const key = `${ownerRepo}@${ref}`;
    const known = /^[0-9a-f]{40}$/.test(ref) ? ref : this.pins()[key];
    let commit = known ?? '';
    if (!known || !existsSync(join(parent, known, '.git'))) {
      const tmp = join(parent, `.clone-${randomBytes(6).toString('hex')}`);
      try {
        const url = `${this.o.gitBase.replace(/\/+$/, '')}/${owner}/${name}`;
        await git(['clone', '--no-checkout', '--quiet', '--', url, tmp]);
        // Resolved once: later calls use the pin, never the branch's new head.
        if (known) await git(['cat-file', '-e', `${known}^{commit}`], tmp);
        else commit = await this.resolve(tmp, ref);
        await git(['-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', commit], tmp);
        if (existsSync(join(parent, commit))) rmSync(tmp, { recursive: true, force: true });
        else renameSync(tmp, join(parent, commit));
      } catch (err) {
        rmSync(tmp, { recursive: true, force: true });
        throw err;
      }
    }
    if (!known) {
      this.pin(key, commit);
      this.o.log(`pinned ${key} to ${commit}`);
    }
    const dir = join(parent, commit);
    return this.install(dir, commit);
  }

  /** The ref as a commit: a local name, else the remote's branch, else a tag (clone fetched them all). */
  private async resolve(dir: string, ref: string): Promise<string> {
    for (const candidate of [ref, `origin/${ref}`, `refs/tags/${ref}`]) {
      try {
        return await git(['rev-parse', '--verify', '--quiet', `${candidate}^{commit}`], dir);
      } catch {
        // next
      }
    }
    throw new InstallError(`ref ${ref} names no commit of the repository`);
  }

  private async install(dir: string, commit: string): Promise<PreparedRepository> {
    const marker = `${dir}.installed`;
    const installed = existsSync(marker);
    let envKeys: string[] = [];
    let extraArgs: string[] = [];
    if (existsSync(join(dir, 'server.json'))) {
      const parsed = serverJson.safeParse(JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8')));
      const entry = parsed.success ? parsed.data.packages?.find((p) => p.registryType === 'npm' || p.registryType === 'pypi') : undefined;
      if (entry) {
        envKeys = (entry.environmentVariables ?? []).map((e) => e.name);
        // Runtime arguments are the runner's own flags (node's, uvx's): they could change what runs, so only the package's are used.
        extraArgs = fixedArguments(entry.packageArguments);
      }
    }
    if (existsSync(join(dir, 'package.json'))) {
      const pkg = z
        .looseObject({ bin: z.union([z.string(), z.record(z.string(), z.string())]).optional(), main: z.string().optional() })
        .parse(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')));
      const entry = typeof pkg.bin === 'string' ? pkg.bin : (Object.values(pkg.bin ?? {})[0] ?? pkg.main ?? 'index.js');
      const script = join(dir, entry);
      if (!script.startsWith(`${dir}/`)) throw new InstallError(`package.json names ${entry}, outside the repository`);
      if (!installed) {
        const cache = join(this.o.stateDir, 'npm-cache');
        mkdirSync(cache, { recursive: true });
        const lock = existsSync(join(dir, 'package-lock.json')) || existsSync(join(dir, 'npm-shrinkwrap.json'));
        // In the clone's folder rather than --prefix, which would also move npm's global config (a CA file, say).
        const args = [lock ? 'ci' : 'install', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'];
        if (!lock) args.push('--no-package-lock');
        const env: Record<string, string> = { ...fetchEnv(), npm_config_cache: cache, npm_config_update_notifier: 'false' };
        await installStep(this.o.launcher, this.o.log, 'npm', args, [dir, cache], env);
        writeFileSync(marker, `${new Date().toISOString()}\n`);
      }
      return { commit, dir, command: 'node', args: [script, ...extraArgs], envKeys, binds: [{ dir, write: false }], env: {} };
    }
    if (existsSync(join(dir, 'pyproject.toml'))) {
      const script = firstProjectScript(readFileSync(join(dir, 'pyproject.toml'), 'utf8'));
      if (!script) throw new InstallError('pyproject.toml has no [project.scripts] entry to run');
      const cache = join(this.o.stateDir, 'uv-cache');
      mkdirSync(cache, { recursive: true });
      const env = { UV_CACHE_DIR: cache, UV_NO_PROGRESS: '1' };
      const installEnv = { ...fetchEnv(), ...env };
      const args = ['--from', dir, script];
      if (!installed) {
        // uv builds the environment into its cache on first run: once here with the network, later runs are offline.
        await installStep(this.o.launcher, this.o.log, 'uvx', [...args, '--help'], [dir, cache], installEnv, true);
        writeFileSync(marker, `${new Date().toISOString()}\n`);
      }
      return {
        commit,
        dir,
        command: 'uvx',
        args: ['--offline', ...args, ...extraArgs],
        envKeys,
        binds: [
          { dir, write: false },
          { dir: cache, write: true },
        ],
        env: { ...env, UV_OFFLINE: '1' },
      };
    }
    throw new InstallError('the repository has neither package.json nor pyproject.toml: the relay does not know how to install it');
  }
}

/** The first name under `[project.scripts]` of a pyproject.toml (a line scan: the relay has no TOML parser). */
export function firstProjectScript(toml: string): string | null {
  let inScripts = false;
  for (const raw of toml.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) {
      inScripts = line === '[project.scripts]';
      continue;
    }
    const m = inScripts ? /^"?([A-Za-z0-9_.-]+)"?\s*=/.exec(line) : null;
    if (m) return m[1]!;
  }
  return null;
}
