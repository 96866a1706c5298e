// One shutdown path for a production process (API or worker): the first SIGTERM/SIGINT starts a
// graceful stop; a second signal, or the stop outlasting its deadline, exits at once with 1.
import type { Logger } from '../kernel/logging/logger.js';

export const shutdownSignals = ['SIGTERM', 'SIGINT'] as const;

export interface GracefulStop {
  /** What stops, for the log lines ('API', 'worker'). */
  what: string;
  logger: Logger;
  /** From the first signal: past this, the process exits 1 whatever is still running. */
  deadlineMs: number;
  /** Drains and closes everything; the process exits 0 once it resolves, 1 if it throws. */
  stop: (signal: NodeJS.Signals) => Promise<void>;
  /** process.exit, unless a test replaces it. */
  exit?: (code: number) => never;
}

/** Installs the signal handlers; returns a function that removes them (tests, or a process that stops by itself). */
export function onShutdownSignal({ what, logger, deadlineMs, stop, exit = (code) => process.exit(code) }: GracefulStop): () => void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, `${what}: second signal, exiting at once`);
      exit(1);
    }
    stopping = true;
    logger.info({ signal, deadline_ms: deadlineMs }, `${what} stopping`);
    const deadline = setTimeout(() => {
      logger.error({ deadline_ms: deadlineMs }, `${what}: graceful stop did not finish in time, exiting`);
      exit(1);
    }, deadlineMs);
    deadline.unref();
    stop(signal).then(
      () => {
        logger.info(`${what} stopped`);
        exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, `${what}: graceful stop failed`);
        exit(1);
      },
    );
  };
  for (const signal of shutdownSignals) process.on(signal, handler);
  return () => shutdownSignals.forEach((signal) => process.off(signal, handler));
}
