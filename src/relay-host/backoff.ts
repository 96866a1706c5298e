/**
 * Reconnection delays (issue #34): exponential backoff with FULL jitter, a uniform draw in
 * [0, min(cap, base·2^attempt)), so relays that lost the platform together do not come back together.
 */
export interface Backoff {
  base: number;
  cap: number;
}

/**
 * A 15 s cap: a relay back from an outage reconnects within 15 s, well inside the 90 s the platform
 * waits before it fails the relay's running calls as lost.
 */
export const reconnectBackoff: Backoff = { base: 500, cap: 15_000 };

/** The delay before retry number `attempt` (0 for the first retry). */
export function backoffDelay(attempt: number, { base, cap }: Backoff = reconnectBackoff, random: () => number = Math.random): number {
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}

/** Waits `ms`, or less when `signal` aborts (never rejects: the caller checks the signal). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
