// Task-agent invocation end to end (no LLM): POST /artifacts/{agent}/invoke in apply mode, which
// starts the agentRun workflow (eagerly: the bench's worker runs in the API's process, as
// TEMPORAL_EAGER_START allows), runs the agent and applies its one update (local activities), and
// answers with the run's result. Baseline in the same run: GET /artifacts/{id}, the API's floor. Then
// how many concurrent invocations one worker sustains. Goals: p50 ≤ 60 ms; ≥ 50 invocations/s.
import { agentId } from '../src/invocations/agents/registry.js';
import { recordGoal } from './goals.js';
import { load, type LoadResult } from './load.js';
import { benchPlatform } from './platform.js';

const count = Number(process.env.BENCH_INVOCATIONS ?? 300);
const levels = [1, 4, 16, 32];

async function main(): Promise<void> {
  const bench = await benchPlatform('bench-invoke', { EMBEDDINGS_PROVIDER: 'hashing' });
  try {
    const { url, headers } = bench;
    const post = (path: string, body: unknown) => fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const ws = (await (await post('/workspaces', { name: 'bench' })).json()).id;
    const docs: string[] = [];
    for (let i = 0; i < 64; i++)
      docs.push(
        (
          await (
            await post('/artifacts', {
              title: `d${i}`,
              content_type: 'text/plain',
              content: 'The budget for the quarter.',
              collection_id: ws,
            })
          ).json()
        ).id,
      );
    const tag = agentId('tag-keywords');
    let n = 0;
    const invoke = async (i: number) => {
      // A new tag each time, so every invocation proposes and applies one update.
      const res = await post(`/artifacts/${tag}/invoke`, {
        artifact_ids: [docs[i % docs.length]],
        mode: 'apply',
        params: { rules: { [`t${n++}`]: ['budget'] } },
      });
      const body = await res.json();
      return res.status === 200 && body.status === 'completed' && body.actions.length === 1;
    };
    const read = async (i: number) => (await fetch(`${url}/artifacts/${docs[i % docs.length]}`, { headers })).status === 200;
    await load(30, 1, read);
    await load(30, 1, invoke);
    const floor = await load(count, 1, read);
    const one = await load(count, 1, invoke);
    console.log(`\n${count} sequential requests per row; tag-keywords in apply mode (one update each)\n`);
    console.log('path                              |  p50 ms  p99 ms | errors');
    console.log(
      `GET /artifacts/{id} (baseline)    | ${floor.p50.toFixed(1).padStart(7)} ${floor.p99.toFixed(1).padStart(7)} | ${floor.errors}`,
    );
    console.log(`POST /artifacts/{agent}/invoke    | ${one.p50.toFixed(1).padStart(7)} ${one.p99.toFixed(1).padStart(7)} | ${one.errors}`);
    console.log(
      `\ninvoke p50 ${one.p50.toFixed(1)} ms = ${(one.p50 / floor.p50).toFixed(1)}x the baseline (goal p50 ≤ 60 ms: ${one.p50 <= 60 ? 'met' : 'NOT met'})`,
    );
    const rows: [number, LoadResult][] = [];
    for (const c of levels) rows.push([c, await load(Math.max(100, c * 10), c, invoke)]);
    console.log('\nconcurrent invocations, one worker (goal ≥ 50 invocations/s)\n');
    console.log('clients | invocations/s |  p50 ms  p99 ms | errors');
    for (const [c, r] of rows)
      console.log(
        `${String(c).padStart(7)} | ${r.perSecond.toFixed(1).padStart(13)} | ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)} | ${r.errors}`,
      );
    const best = Math.max(...rows.map(([, r]) => r.perSecond));
    console.log(`\nbest: ${best.toFixed(1)} invocations/s (goal ≥ 50: ${best >= 50 ? 'met' : 'NOT met'})`);
    recordGoal({
      row: 'invocation',
      what: 'task-agent invocation, apply mode, p50',
      measured: `${one.p50.toFixed(0)} ms (p99 ${one.p99.toFixed(0)} ms)`,
      baseline: `GET /artifacts/{id} p50 ${floor.p50.toFixed(1)} ms`,
      ratio: one.p50 / floor.p50,
      goal: 'p50 ≤ 60 ms',
      met: one.p50 <= 60,
    });
    const bestAt = rows.find(([, r]) => r.perSecond === best)![0];
    recordGoal({
      row: 'invocation',
      what: `invocations/s, one worker (best of ${levels.join('/')} clients: ${bestAt})`,
      measured: `${best.toFixed(1)}/s`,
      baseline: `GET /artifacts/{id} ${(1000 / floor.p50).toFixed(0)}/s at one client`,
      ratio: best / (1000 / floor.p50),
      goal: '≥ 50 invocations/s',
      met: best >= 50,
    });
  } finally {
    await bench.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
