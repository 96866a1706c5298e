// A closed-loop load generator: `concurrency` clients each sending requests back to back.

export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

export async function load(count: number, concurrency: number, send: (i: number) => Promise<boolean>): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        if (!(await send(i))) errors++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { requests: count, seconds, perSecond: count / seconds, p50: at(0.5), p99: at(0.99), errors };
}
