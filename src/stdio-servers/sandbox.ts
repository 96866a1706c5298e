import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
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
  /**
   * Folders bound at their own path, read-only or writable (the desktop relay's policy folders, a clone
   * being installed); a bind inside a hidden folder shows through it, a hidden folder inside a bind stays hidden.
   */
  binds?: { dir: string; write: boolean }[];
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

/** The first executable file `command` on `path`, as a shell would find it. */
export function which(command: string, path: string[]): string | null {
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

/**
 * The unprivileged uids sandboxes run as when the worker is root: one per launch, from a random point of
 * the range, so RLIMIT_NPROC is the server's own unless two launches on one host draw the same uid
 * (operators reserve the range, docs/decisions.md "Threat model").
 */
const uidBase = 100_000;
const uidSpan = 60_000;
let launches = randomInt(uidSpan);

const runners = ['npx', 'uvx', 'node', 'python3', 'python', 'deno'];

/** One mount of the sandbox's file system; bubblewrap applies them in order, so they are emitted shallowest first. */
type Mount = { kind: 'hide' | 'expose' | 'scratch'; dir: string } | { kind: 'bind'; dir: string; write: boolean };

export class Sandbox {
  private readonly hidden: string[];
  private readonly path: string[];
  private readonly mounts: Mount[];
  private readonly asRoot = process.getuid?.() === 0;

  constructor(private readonly options: SandboxOptions) {
    const hidden = [...new Set(options.hidden.map((d) => real(d)).filter((d): d is string => d !== null && d !== '/'))];
    // The sandbox's /tmp is a tmpfs of its own, so what lies under the host's /tmp (a checkout there, say) is covered too.
    this.hidden = [...hidden, ...(hidden.includes('/tmp') ? [] : ['/tmp'])];
    const covered = this.hidden;
    const inHidden = (p: string) => covered.some((h) => isInside(p, h));
    // Never exposed: a hidden folder itself (a runner in ~/bin must not expose ~). A hidden folder inside an
    // exposed one is hidden again, since mounts are made shallowest first.
    const exposable = (p: string) => !covered.includes(p);
    const exposed = new Set<string>();
    const scratch: string[] = [];
    const path: string[] = [];
    for (const entry of options.path.split(delimiter).filter(Boolean)) {
      const dir = real(resolve(entry));
      if (!dir || path.includes(dir)) continue;
      if (inHidden(dir)) {
        // A PATH folder in a hidden one is kept only when it holds a runner (the installed uv wrappers under .dev/bin).
        if (!exposable(dir) || !runners.some((r) => which(r, [dir]))) continue;
        exposed.add(dir);
      }
      path.push(dir);
    }
    this.path = path;
    // Each runner's installation (a Python under the home folder, say) exposed read-only when hidden: its
    // prefix (…/bin/..), else its own folder, else the executable alone, whichever holds no hidden folder.
    const exposeInstall = (executable: string | null) => {
      const target = executable ? real(executable) : null;
      if (!target || !inHidden(target)) return;
      const choice = [dirname(dirname(target)), dirname(target), target].find((p) => inHidden(p) && exposable(p));
      if (choice) exposed.add(choice);
    };
    for (const runner of runners) exposeInstall(which(runner, path));
    // uv as temporal-dev/install-mcp-servers.sh lays it out: wrappers in <dev>/bin, state in <dev>/uv. uv
    // locks its cache and tool folders, so each is a private tmpfs with the installed tools bound back read-only.
    const uvx = which('uvx', path);
    const uvDir = uvx ? real(join(dirname(uvx), '..', 'uv')) : null;
    if (uvDir && exposable(uvDir)) {
      if (inHidden(uvDir)) exposed.add(uvDir);
      exposeInstall(join(uvDir, 'venv', 'bin', 'python3'));
      const tools = join(uvDir, 'tools');
      for (const dir of [join(uvDir, 'cache'), tools]) if (existsSync(dir)) scratch.push(dir);
      if (existsSync(tools))
        for (const d of readdirSync(tools, { withFileTypes: true })) if (d.isDirectory()) exposed.add(join(tools, d.name));
    }
    // The working folder (examples, node_modules) when it lies in a hidden one, say a checkout in the home folder.
    const work = real(options.workDir);
    if (work && inHidden(work) && exposable(work)) exposed.add(work);
    const depth = (p: string) => (p === '/' ? 0 : p.split(sep).length);
    // An exposed folder inside another needs no mount of its own, unless a hidden or scratch folder lies between them.
    const barriers = [...covered, ...scratch];
    const needed = [...exposed].filter(
      (dir) =>
        ![...exposed].some(
          (outer) => outer !== dir && isInside(dir, outer) && !barriers.some((h) => isInside(h, outer) && isInside(dir, h)),
        ),
    );
    const binds = (options.binds ?? []).flatMap((b) => {
      const dir = real(b.dir);
      return dir && dir !== '/' ? [{ kind: 'bind' as const, dir, write: b.write }] : [];
    });
    const all: Mount[] = [
      ...hidden.map((dir) => ({ kind: 'hide' as const, dir })),
      ...needed.map((dir) => ({ kind: 'expose' as const, dir })),
      ...binds,
      ...scratch.map((dir) => ({ kind: 'scratch' as const, dir })),
    ];
    // Shallowest first, and at one depth hidden before exposed before bound before scratch: a deeper mount always wins.
    const order = { hide: 0, expose: 1, bind: 2, scratch: 3 };
    this.mounts = all.sort((a, b) => depth(a.dir) - depth(b.dir) || order[a.kind] - order[b.kind]);
  }

  /** Why the sandbox cannot start here, or null: a real launch of `true` inside it, bounded. */
  probe(): string | null {
    const { command, args, env } = this.command({ command: 'true', args: [], network: false, limits: defaultLimits }, {});
    const result = spawnSync(command, args, { env, timeout: 10_000, encoding: 'utf8' });
    if (result.error) return `${this.options.bwrap} could not be started (${result.error.message})`;
    if (result.status !== 0)
      return `${this.options.bwrap} failed (exit ${result.status ?? result.signal}): ${(result.stderr ?? '').trim().slice(0, 300) || 'no message'}`;
    return null;
  }

  /** The sandboxed command line for an entry's launch; `env` is the entry's fixed env plus the resolved secrets. */
  command(launch: Launch, env: Record<string, string>): SandboxedCommand {
    const { limits } = launch;
    const runner = which(launch.command, this.path) ?? launch.command;
    const tmpBytes = String(limits.tmp_mb * 1024 * 1024);
    const b: string[] = ['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
    if (!launch.network) b.push('--unshare-net');
    if (!this.asRoot) b.push('--unshare-user', '--uid', '65534', '--gid', '65534');
    b.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc');
    // Every tmpfs is bounded; the hidden ones (and /run) are read-only besides, since a sandbox in a user namespace owns them.
    b.push('--size', '65536', '--tmpfs', '/run', '--remount-ro', '/run');
    b.push('--perms', '1777', '--size', tmpBytes, '--tmpfs', '/tmp');
    const made = new Set<string>();
    for (const m of this.mounts) {
      if (m.kind === 'hide') {
        b.push('--perms', '0755', '--size', '65536', '--tmpfs', m.dir);
      } else if (m.kind === 'scratch') {
        b.push('--perms', '1777', '--size', tmpBytes, '--tmpfs', m.dir);
        made.add(m.dir);
      } else {
        // Every folder between the enclosing hidden one and the exposed one must exist and be traversable.
        const under = this.hidden.filter((h) => isInside(m.dir, h) && h !== m.dir).sort((x, y) => y.length - x.length)[0];
        if (under) {
          let at = under;
          for (const part of relative(under, dirname(m.dir)).split(sep).filter(Boolean)) {
            at = join(at, part);
            if (!made.has(at)) b.push('--perms', '0755', '--dir', at);
            made.add(at);
          }
        }
        b.push(m.kind === 'bind' && m.write ? '--bind' : '--ro-bind', m.dir, m.dir);
        made.add(m.dir);
      }
    }
    // Read-only once the folders exposed inside them exist (a sandbox in a user namespace owns these tmpfs mounts).
    // A hidden folder bound back whole (a policy folder that is the home folder) keeps its bind's own mode.
    const rebound = new Set(this.mounts.filter((m) => m.kind === 'bind').map((m) => m.dir));
    for (const m of this.mounts) if (m.kind === 'hide' && !rebound.has(m.dir)) b.push('--remount-ro', m.dir);
    b.push('--chdir', this.options.workDir, '--');
    const rlimits = [
      'prlimit',
      `--as=${limits.memory_mb * 1024 * 1024}`,
      `--nproc=${limits.processes}`,
      `--cpu=${limits.cpu_seconds}`,
      `--nofile=${limits.open_files}`,
      '--core=0',
      '--',
    ];
    const uid = String(uidBase + (launches++ % uidSpan));
    const drop = this.asRoot
      ? ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--no-new-privs', '--inh-caps=-all', '--bounding-set=-all', '--']
      : [];
    return {
      command: this.options.bwrap,
      args: [...b, ...rlimits, ...drop, runner, ...launch.args],
      env: {
        PATH: this.path.join(delimiter),
        HOME: '/tmp',
        TMPDIR: '/tmp',
        USER: 'nobody',
        LOGNAME: 'nobody',
        SHELL: '/bin/sh',
        TERM: 'dumb',
        LANG: 'C.UTF-8',
        ...env,
      },
    };
  }
}

/** bubblewrap: STDIO_SANDBOX_BWRAP, else the first on PATH (temporal-dev/install-sandbox.sh puts one in .dev/bin when it cannot install Debian's). */
export function findBwrap(configured: string | undefined): string {
  return configured ?? which('bwrap', (process.env.PATH ?? '').split(delimiter).filter(Boolean)) ?? 'bwrap';
}
