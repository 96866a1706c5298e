import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, join, relative, resolve, sep } from 'node:path';
import { defaultLimits, type Limits } from './catalog.js';

/**
 * Where a sandboxed stdio server runs (docs/decisions.md, "Threat model"): bubblewrap gives it its own
 * PID, IPC, UTS and (unless its catalog entry says otherwise) network namespaces, a fresh /proc that
 * shows only its own processes, a private /tmp, and a read-only view of the rest of the file system
 * with the worker's home, its dev state folder and /run hidden. It runs as an unprivileged user with
 * no capabilities and no_new_privs, under rlimits on address space, processes, CPU time and files.
 */
export interface SandboxOptions {
  /** The bubblewrap executable. */
  bwrap: string;
  /** Folders hidden behind an empty tmpfs (the worker's home, PLATFORM_DEV_DIR). */
  hidden: string[];
  /** The worker's PATH: entries inside hidden folders are dropped unless exposed. */
  path: string;
  /** The folder the server starts in (the worker's own), read-only. */
  workDir: string;
}

/** One launch: a runner found on the sandbox's PATH and the arguments a catalog entry gave. */
export interface Launch {
  command: string;
  args: string[];
  network: boolean;
  limits: Limits;
}

export interface SandboxedCommand {
  command: string;
  args: string[];
  /** The whole environment of the child: nothing of the worker's is inherited. */
  env: Record<string, string>;
}

const isInside = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
};

function which(command: string, path: string[]): string | null {
  for (const dir of path) {
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** The unprivileged uids sandboxes run as when the worker is root: one per launch, so RLIMIT_NPROC is the server's own. */
const uidBase = 100_000;
const uidSpan = 60_000;
let launches = 0;

export class Sandbox {
  private readonly hidden: string[];
  private readonly path: string[];
  private readonly exposed: string[];
  /** Folders a runner must write to, given as private tmpfs mounts (with any read-only content bound back). */
  private readonly scratch: { dir: string; keep: string[] }[];
  private readonly asRoot = process.getuid?.() === 0;

  constructor(private readonly options: SandboxOptions) {
    this.hidden = [...new Set(options.hidden.map((d) => real(d)).filter((d): d is string => d !== null && d !== '/'))];
    const exposed = new Set<string>();
    const scratch: { dir: string; keep: string[] }[] = [];
    const path: string[] = [];
    for (const entry of options.path.split(delimiter).filter(Boolean)) {
      const dir = real(resolve(entry));
      if (!dir || path.includes(dir)) continue;
      const hiddenBy = this.hidden.find((h) => isInside(dir, h));
      // A PATH folder in a hidden one is kept only when it holds a runner (the installed uv wrappers under .dev/bin).
      if (hiddenBy && !['npx', 'uvx', 'node', 'python3', 'python', 'deno'].some((r) => which(r, [dir]))) continue;
      path.push(dir);
      if (hiddenBy) exposed.add(dir);
    }
    this.path = path;
    // Each runner's installation (for example a Python under the home folder): exposed read-only when hidden.
    const exposeInstall = (executable: string | null) => {
      const target = executable ? real(executable) : null;
      if (target && this.hidden.some((h) => isInside(target, h))) exposed.add(dirname(dirname(target)));
    };
    for (const runner of ['npx', 'node', 'python3', 'python', 'deno']) exposeInstall(which(runner, path));
    // uv as temporal-dev/install-mcp-servers.sh lays it out: wrappers in <dev>/bin, state in <dev>/uv. uv
    // locks its cache and tool folders, so each is a private tmpfs with the installed tools bound back read-only.
    const uvx = which('uvx', path);
    const uvDir = uvx ? real(join(dirname(uvx), '..', 'uv')) : null;
    if (uvDir) {
      exposed.add(uvDir);
      exposeInstall(join(uvDir, 'venv', 'bin', 'python3'));
      const tools = join(uvDir, 'tools');
      const keep = existsSync(tools) ? readdirSync(tools, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(tools, d.name)) : [];
      scratch.push({ dir: join(uvDir, 'cache'), keep: [] }, { dir: tools, keep });
    }
    this.exposed = [...exposed];
    this.scratch = scratch.filter((s) => existsSync(s.dir));
  }

  /** Why the sandbox cannot start here, or null: a real launch of `true` inside it, bounded. */
  probe(): string | null {
    const { command, args, env } = this.command({ command: 'true', args: [], network: false, limits: defaultLimits }, {});
    const result = spawnSync(command, args, { env, timeout: 10_000, encoding: 'utf8' });
    if (result.error) return `${this.options.bwrap} could not be started (${result.error.message})`;
    if (result.status !== 0) return `${this.options.bwrap} failed (exit ${result.status ?? result.signal}): ${(result.stderr ?? '').trim().slice(0, 300) || 'no message'}`;
    return null;
  }

  /** The sandboxed command line for an entry's launch; `env` is the entry's fixed env plus the resolved secrets. */
  command(launch: Launch, env: Record<string, string>): SandboxedCommand {
    const { limits } = launch;
    const runner = which(launch.command, this.path) ?? launch.command;
    const b: string[] = ['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
    if (!launch.network) b.push('--unshare-net');
    if (!this.asRoot) b.push('--unshare-user', '--uid', '65534', '--gid', '65534');
    b.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--perms', '0755', '--tmpfs', '/run');
    b.push('--perms', '1777', '--size', String(limits.tmp_mb * 1024 * 1024), '--tmpfs', '/tmp');
    for (const dir of this.hidden) b.push('--perms', '0755', '--tmpfs', dir);
    for (const dir of this.exposed) {
      const under = this.hidden.find((h) => isInside(dir, h));
      if (under) {
        // Every folder between the hidden one and the exposed one must be traversable by the sandbox's user.
        let at = under;
        for (const part of relative(under, dirname(dir)).split(sep).filter(Boolean)) b.push('--perms', '0755', '--dir', (at = join(at, part)));
      }
      b.push('--ro-bind', dir, dir);
    }
    for (const { dir, keep } of this.scratch) {
      b.push('--perms', '1777', '--size', String(limits.tmp_mb * 1024 * 1024), '--tmpfs', dir);
      for (const k of keep) b.push('--ro-bind', k, k);
    }
    b.push('--chdir', this.options.workDir, '--');
    const rlimits = ['prlimit', `--as=${limits.memory_mb * 1024 * 1024}`, `--nproc=${limits.processes}`, `--cpu=${limits.cpu_seconds}`, `--nofile=${limits.open_files}`, '--core=0', '--'];
    const uid = String(uidBase + ((process.pid * 7 + launches++) % uidSpan));
    const drop = this.asRoot ? ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--no-new-privs', '--inh-caps=-all', '--bounding-set=-all', '--'] : [];
    return {
      command: this.options.bwrap,
      args: [...b, ...rlimits, ...drop, runner, ...launch.args],
      env: { PATH: this.path.join(delimiter), HOME: '/tmp', TMPDIR: '/tmp', USER: 'nobody', LOGNAME: 'nobody', SHELL: '/bin/sh', TERM: 'dumb', LANG: 'C.UTF-8', ...env },
    };
  }
}

/** bubblewrap: STDIO_SANDBOX_BWRAP, else the first on PATH (temporal-dev/install-sandbox.sh puts one in .dev/bin when it cannot install Debian's). */
export function findBwrap(configured: string | undefined): string {
  return configured ?? which('bwrap', (process.env.PATH ?? '').split(delimiter).filter(Boolean)) ?? 'bwrap';
}
