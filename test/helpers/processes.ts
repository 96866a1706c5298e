// Waiting for a process a test started: until its output says it is ready, or it exits, or too long passes.
import type { ChildProcess } from 'node:child_process';

/**
 * Resolves once the child's output (stdout and stderr) shows `ready`; rejects with the output's tail
 * when the child exits first or `timeoutMs` passes. `onOutput` sees every chunk.
 */
export async function untilReady(
  child: ChildProcess,
  ready: string | RegExp,
  what: string,
  opts: { timeoutMs?: number; onOutput?: (chunk: string) => void } = {},
): Promise<void> {
  const { timeoutMs = 60_000, onOutput } = opts;
  let output = '';
  const tail = () => output.slice(-2000);
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const seen = (d: Buffer) => {
        output += d;
        onOutput?.(String(d));
        if (typeof ready === 'string' ? output.includes(ready) : ready.test(output)) resolve();
      };
      child.stdout!.on('data', seen);
      child.stderr!.on('data', seen);
      child.once('exit', (code) => reject(new Error(`${what} exited with ${code}: ${tail()}`)));
      timer = setTimeout(() => reject(new Error(`${what} did not start in ${timeoutMs / 1000} s: ${tail()}`)), timeoutMs);
    });
  } finally {
    clearTimeout(timer);
    child.removeAllListeners('exit');
  }
}
