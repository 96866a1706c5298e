// One ffmpeg (or ffprobe) process: spawned with an argument array (never a shell), its stderr kept to
// a bounded tail, and killed for sure: SIGTERM, then SIGKILL, and the exit awaited.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/**
 * util-linux's setpriv, when the host has it: ffmpeg runs under `--pdeathsig KILL`, so a worker killed
 * without warning (SIGKILL, OOM) takes its media processes with it. A pulling ffmpeg's input is the
 * remote source, not the worker, so nothing else would end it. The signal fires when the thread that
 * spawned the child exits: Node spawns from its event-loop thread, which lives as long as the process.
 */
export const setprivPath = (() => {
  try {
    accessSync('/usr/bin/setpriv', constants.X_OK);
    return '/usr/bin/setpriv';
  } catch {
    return null;
  }
})();

export interface MediaProcess {
  child: ChildProcess;
  /** Resolves once the process has exited (never rejects): its code, signal and stderr's tail. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  /** Stops it: SIGTERM, SIGKILL after `graceMs`; resolves when it is gone. */
  stop(graceMs?: number): Promise<void>;
}

/** The stderr tail kept per process: enough for ffmpeg's error lines, never a growing buffer. */
const stderrMax = 16 * 1024;

/**
 * Spawns `command args`. `redact` strings are cut from stderr (a stream key ffmpeg might echo). Its
 * stdout is ignored unless `stdout` is asked for (ffprobe's JSON), then bounded to `stdoutMax`.
 */
export function spawnMedia(
  command: string,
  args: string[],
  options: { redact?: string[]; stdout?: boolean; stdoutMax?: number; cwd?: string } = {},
): MediaProcess & { stdout: () => string } {
  const [file, argv] = setprivPath ? [setprivPath, ['--pdeathsig', 'KILL', '--', command, ...args]] : [command, args];
  const child = spawn(file, argv, {
    stdio: ['ignore', options.stdout ? 'pipe' : 'ignore', 'pipe'],
    shell: false,
    cwd: options.cwd,
    // Its own environment only: nothing of the worker's (credentials, tokens) reaches ffmpeg.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C' },
  });
  let stderr = '';
  let stdout = '';
  const stdoutMax = options.stdoutMax ?? 1024 * 1024;
  let stdoutOver = false;
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => {
    stderr = (stderr + d).slice(-stderrMax);
  });
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (d: string) => {
    if (stdout.length + d.length > stdoutMax) stdoutOver = true;
    else stdout += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
    let error: Error | null = null;
    child.once('error', (err) => {
      error = err; // not found, not executable: 'close' follows
      if (child.pid === undefined) resolve({ code: null, signal: null, stderr: `${command}: ${err.message}` });
    });
    child.once('close', (code, signal) => {
      let text = error ? `${stderr}\n${command}: ${(error as Error).message}` : stderr;
      for (const secret of options.redact ?? []) if (secret) text = text.split(secret).join('***');
      resolve({ code, signal, stderr: text });
    });
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
  return {
    child,
    exited,
    stdout: () => (stdoutOver ? '' : stdout),
    async stop(graceMs = 3000) {
      if (!gone()) child.kill('SIGTERM');
      const timer = setTimeout(() => gone() || child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
