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
  return summary([await run(count, concurrency, send, 0)]);
}

/**
 * Two loads taken in turns (`rounds` rounds of count/rounds requests each, a then b), so that a
 * machine whose other load comes and goes (two shared cores) weighs on both alike.
 */
export async function interleaved(
  count: number,
  concurrency: number,
  rounds: number,
  a: (i: number) => Promise<boolean>,
  b: (i: number) => Promise<boolean>,
): Promise<[LoadResult, LoadResult]> {
  const runs: [Run[], Run[]] = [[], []];
  const per = Math.ceil(count / rounds);
  for (let r = 0; r < rounds; r++) {
    runs[0].push(await run(per, concurrency, a, r * per));
    runs[1].push(await run(per, concurrency, b, r * per));
  }
  return [summary(runs[0]), summary(runs[1])];
}

interface Run {
  latencies: number[];
  seconds: number;
  errors: number;
}

async function run(count: number, concurrency: number, send: (i: number) => Promise<boolean>, offset: number): Promise<Run> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        if (!(await send(offset + i))) errors++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000, errors };
}

function summary(runs: Run[]): LoadResult {
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  const requests = latencies.length;
  return {
    requests,
    seconds,
    perSecond: requests / seconds,
    p50: at(0.5),
    p99: at(0.99),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
  };
}
