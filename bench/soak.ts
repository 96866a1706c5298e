// The long soak of issue #31: a 16-client mixed load (create, get, patch, search, invoke) for
// BENCH_SOAK_MINUTES (default 10) on a platform seeded with BENCH_SOAK_ARTIFACTS (default 100,000; at
// least 20,000 for the issue's "done when"), in the `npm start` layout (BENCH_SOAK_LAYOUT=lean for the
// other). Reports, minute by minute and in all: requests, p50, p99, 5xx and unanswered requests;
// /readyz probed every 5 s on the side; the longest time in which no request got an answer; storage
// calls that missed their deadline. After the load the platform must still answer (a read, a write, a
// search) and its worker drain what the load left. A wedge is a silence of 30 s or more, or a platform
// that does not answer afterwards. Records a 'soak' row for bench/summary.ts.
import { recordGoal } from './goals.js';
import { call, mixedLoad, must, settled, storageDeadlines, type Client } from './mixed.js';
import { layoutName, startPlatform, type Layout } from './scale-platform.js';

const minutes = Number(process.env.BENCH_SOAK_MINUTES ?? 10);
const artifacts = Number(process.env.BENCH_SOAK_ARTIFACTS ?? 100_000);
const layout = (process.env.BENCH_SOAK_LAYOUT ?? 'npm-start') as Layout;
const clients = Number(process.env.BENCH_SOAK_CLIENTS ?? 16);
const wedgeMs = 30_000;

/** /readyz every 5 s until stopped: how often it said not ready, or did not answer. */
function probeReadiness(client: Client): { stop(): Promise<{ probes: number; notReady: number; unanswered: number }> } {
  let stopped = false;
  const counts = { probes: 0, notReady: 0, unanswered: 0 };
  const running = (async () => {
    while (!stopped) {
      const r = await call(client, 'GET', '/readyz', undefined, 10_000);
      counts.probes++;
      if (r.status === 0) counts.unanswered++;
      else if (r.status !== 200) counts.notReady++;
      await new Promise((res) => setTimeout(res, 5000));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await running;
      return counts;
    },
  };
}

async function main(): Promise<void> {
  const large = Math.min(artifacts, Math.max(Math.round(artifacts / 5), 1010));
  console.log(`[bench] soak: ${layoutName[layout]} layout, ${artifacts} artifacts, ${clients} clients for ${minutes} minutes`);
  const p = await startPlatform(layout, artifacts, large);
  try {
    const c = p.client;
    const ws = (await must(c, 'POST', '/workspaces', { name: 'soak' })).id as string;
    const ids = p.seed?.sampleArtifactIds ?? [];
    if (!ids.length) throw new Error('the soak needs a seeded platform (BENCH_SOAK_ARTIFACTS > 0)');
    const deadlinesBefore = await storageDeadlines(p.metricsUrls);
    const readiness = probeReadiness(c);
    console.log('\nminute | requests |  p50 ms |  p99 ms | 5xx | unanswered');
    const result = await mixedLoad(c, { workspace: ws, artifactIds: ids, queries: p.seed!.queries }, minutes * 60, {
      clients,
      intervalSeconds: 60,
      onInterval: (i) =>
        console.log(
          `${String(Math.round(i.at / 60)).padStart(6)} | ${String(i.requests).padStart(8)} | ${i.p50.toFixed(0).padStart(7)} | ${i.p99.toFixed(0).padStart(7)} | ${String(i.serverErrors).padStart(3)} | ${i.unanswered}`,
        ),
    });
    const ready = await readiness.stop();
    const deadlines = (await storageDeadlines(p.metricsUrls)) - deadlinesBefore;

    // Still answering afterwards: a read, a write and a search, each within 30 s.
    const after = [
      await call(c, 'GET', `/artifacts/${ids[0]}`, undefined, 30_000),
      await call(
        c,
        'POST',
        '/artifacts',
        { title: 'after the soak', content_type: 'text/plain', content: 'still here', collection_id: ws },
        30_000,
      ),
      await call(c, 'POST', '/artifacts/search', { query: p.seed!.queries[0], limit: 10 }, 30_000),
    ];
    const answersAfter = after.every((r) => r.status >= 200 && r.status < 300);
    const drainStarted = performance.now();
    const drained = await settled(p.db, [], 10 * 60_000);
    const drainSeconds = (performance.now() - drainStarted) / 1000;
    const wedged = result.longestSilenceMs >= wedgeMs || !answersAfter;

    console.log(
      `\nsoak: ${layoutName[layout]} layout, ${artifacts} artifacts seeded, ${clients} clients, ${(result.seconds / 60).toFixed(1)} minutes`,
    );
    console.log(`requests          ${result.requests} (${result.perSecond.toFixed(1)}/s)`);
    console.log(`p50 / p99 / max   ${result.p50.toFixed(0)} / ${result.p99.toFixed(0)} / ${result.max.toFixed(0)} ms`);
    console.log(
      `5xx               ${result.serverErrors} (${result.storageUnavailable} storage-unavailable); unanswered (30 s) ${result.unanswered}; other failures ${result.otherFailures}`,
    );
    console.log(`storage deadlines ${deadlines}`);
    console.log(`longest silence   ${(result.longestSilenceMs / 1000).toFixed(1)} s (a wedge: ≥ ${wedgeMs / 1000} s)`);
    console.log(`/readyz           ${ready.probes} probes, ${ready.notReady} not ready, ${ready.unanswered} unanswered`);
    console.log(
      `afterwards        ${answersAfter ? 'answering (read, write, search)' : `NOT answering: ${after.map((r) => r.status).join(', ')}`}`,
    );
    console.log(`worker drained    ${drained ? `in ${drainSeconds.toFixed(0)} s` : 'NOT within 10 minutes'}`);
    for (const [op, s] of Object.entries(result.byOp))
      console.log(`  ${op.padEnd(7)} ${s.n} requests, p50 ${s.p50.toFixed(0)} ms, p99 ${s.p99.toFixed(0)} ms`);
    recordGoal({
      row: 'soak',
      what: `${layoutName[layout]}: 16-client mixed load for ${minutes} min at ${artifacts.toLocaleString('en')} artifacts`,
      measured: `${wedged ? 'WEDGED' : 'kept answering'} (longest silence ${(result.longestSilenceMs / 1000).toFixed(1)} s); p99 ${result.p99.toFixed(0)} ms, ${result.serverErrors} 5xx, ${deadlines} deadlines`,
      baseline: `p50 ${result.p50.toFixed(0)} ms, ${result.perSecond.toFixed(1)} req/s; worker ${drained ? `drained in ${drainSeconds.toFixed(0)} s` : 'not drained in 10 min'}`,
      goal: 'no wedge; p99 ≤ 1 s, no 5xx, no storage deadline',
      met: !wedged && result.p99 <= 1000 && result.serverErrors === 0 && deadlines === 0 && result.unanswered === 0,
    });
  } finally {
    await p.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
