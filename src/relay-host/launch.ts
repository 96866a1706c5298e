import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { defaultLimits } from '../stdio-servers/catalog.js';
import { findBwrap, Sandbox, which } from '../stdio-servers/sandbox.js';
import { macosProfile } from './macos-profile.js';
import type { Policy } from './policy.js';

export type SandboxKind = 'bwrap' | 'sandbox-exec' | 'none';

/** One process to start: a runner on PATH, its arguments, and what it may see beyond the policy's folders. */
export interface LaunchSpec {
  command: string;
  args: string[];
  network: boolean;
  /** Folders beyond the policy's (a clone, npm's cache), bound at their own path. */
  binds: { dir: string; write: boolean }[];
  /** The call's env (the person's secrets) and fixed settings (npm's cache): never logged. */
  env: Record<string, string>;
  /** The folder it starts in; the relay's own by default. */
  cwd?: string;
}

export interface Launched {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Removes what the launch made for itself (macOS: its temporary folder). */
  cleanup(): void;
}

const whichOn = (command: string, path: string) => which(command, path.split(delimiter).filter(Boolean));

/**
 * How the relay starts a server on this OS (issue #34): bubblewrap on Linux (the workers' own Sandbox,
 * with the person's home and the relay's state folder hidden), sandbox-exec on macOS, and nothing at
 * all only when the person's policy says `"sandbox": "none"` (always so on Windows, which has no sandbox
 * the relay can use: it refuses every server until the person says so).
 */
export class Launcher {
  readonly kind: SandboxKind;
  /** Why no server can start here, or null. */
  readonly unavailable: string | null;
  private readonly bwrap: string;

  constructor(
    private readonly o: { policy: Policy; policyPath: string; stateDir: string; cwd: string; platform?: NodeJS.Platform; bwrap?: string },
  ) {
    const platform = o.platform ?? process.platform;
    this.bwrap = findBwrap(o.bwrap);
    if (o.policy.sandbox === 'none') {
      this.kind = 'none';
      this.unavailable = null;
    } else if (platform === 'linux') {
      this.kind = 'bwrap';
      const why = this.sandbox([]).probe();
      this.unavailable = why
        ? `the sandbox cannot start here (${why}); install bubblewrap, or set "sandbox": "none" in ${o.policyPath} to run servers unsandboxed`
        : null;
    } else if (platform === 'darwin') {
      this.kind = 'sandbox-exec';
      this.unavailable = whichOn('sandbox-exec', `/usr/bin${delimiter}${process.env.PATH ?? ''}`)
        ? null
        : `sandbox-exec is missing; set "sandbox": "none" in ${o.policyPath} to run servers unsandboxed`;
    } else {
      this.kind = 'none';
      this.unavailable = `there is no sandbox on ${platform}: servers run only when ${o.policyPath} says "sandbox": "none"`;
    }
  }

  private sandbox(binds: { dir: string; write: boolean }[], workDir = this.o.cwd): Sandbox {
    // Besides the person's home and the relay's records: every home on the machine, and the folders where disks and shares are mounted.
    const personal = ['/home', '/root', '/mnt', '/media', '/srv', '/run/media'].filter((d) => existsSync(d));
    return new Sandbox({
      bwrap: this.bwrap,
      hidden: [homedir(), this.o.stateDir, ...personal],
      path: process.env.PATH ?? '',
      workDir,
      binds,
    });
  }

  command(spec: LaunchSpec): Launched {
    if (this.unavailable) throw new Error(this.unavailable);
    const { policy } = this.o;
    const binds = [...policy.folders.map((f) => ({ dir: f.path, write: f.write })), ...spec.binds];
    const path = process.env.PATH ?? '';
    const cwd = spec.cwd ?? this.o.cwd;
    if (this.kind === 'bwrap') {
      const launch = { command: spec.command, args: spec.args, network: spec.network, limits: defaultLimits };
      return { ...this.sandbox(binds, cwd).command(launch, spec.env), cwd, cleanup: () => {} };
    }
    const runner = whichOn(spec.command, path) ?? spec.command;
    if (this.kind === 'sandbox-exec') {
      const temp = mkdtempSync(join(tmpdir(), 'platform-relay-'));
      const profile = macosProfile({
        home: homedir(),
        tempDir: temp,
        folders: binds.map((b) => ({ path: b.dir, write: b.write })),
        readable: [this.o.cwd, cwd],
        network: spec.network,
      });
      return {
        command: 'sandbox-exec',
        args: ['-p', profile, runner, ...spec.args],
        env: { PATH: path, HOME: temp, TMPDIR: temp, LANG: 'C.UTF-8', ...spec.env },
        cwd,
        cleanup: () => rmSync(temp, { recursive: true, force: true }),
      };
    }
    // No sandbox, by the person's choice: the server runs as they do, with their HOME (npx's cache) but no other env of the relay.
    const keep = ['PATH', 'HOME', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA', 'SystemRoot', 'TEMP', 'TMP', 'TMPDIR', 'LANG'];
    const env: Record<string, string> = {};
    for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k]!;
    return { command: runner, args: spec.args, env: { ...env, ...spec.env }, cwd, cleanup: () => {} };
  }
}
