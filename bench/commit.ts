// A 1,000-artifact commit through the whole platform: time from the approval to `committed`, with
// the workflow's `progress` query sampled while it applies. Next to it, in the same run, the raw
// driver writing the same versions and collection artifacts (two insertMany per 100): the least any
// commit could cost on this engine. Goal: approve → committed ≤ 10 s on the dev engines.
import { randomUUID } from 'node:crypto';
import { commitProgressQuery, commitStateQuery, type CommitProgress } from '../src/workflows/contracts/commit-workspace.js';
import { load } from './load.js';
import { benchPlatform } from './platform.js';

const size = Number(process.env.BENCH_COMMIT_ARTIFACTS ?? 1000);
const goalSeconds = 10;

async function main(): Promise<void> {
  // Apply carries the drafts' vectors over and embeds nothing: the instant local embedder keeps the
  // setup (embedding 1,000 drafts) short without changing what is measured.
  const bench = await benchPlatform('bench-commit', { EMBEDDINGS_PROVIDER: 'hashing', COMMIT_MAX_ARTIFACTS: String(Math.max(size, 1)) });
  const { services, config, engines, url, headers } = bench;
  try {
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = await res.json();
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const ws = (await call('POST', '/workspaces', { name: 'bench drafts' })).id;
    const col = (await call('POST', '/collections', { name: 'bench collection' })).id;
    await load(size, 8, async (i) => {
      await call('POST', '/artifacts', {
        title: `Draft ${i}`,
        content_type: 'text/markdown',
        content: `# Draft ${i}\n\n${'lorem ipsum dolor sit amet '.repeat(20)}`,
        collection_id: ws,
      });
      return true;
    });
    // A quiet system: the drafts' embeddings are done, so the commit carries their vectors over.
    const embedded = () => services.db.collection('artifacts').countDocuments({ collection_id: ws, 'search.revision': 1 });
    while ((await embedded()) < size) await new Promise((r) => setTimeout(r, 500));

    const requested = performance.now();
    const commit = await call('POST', `/workspaces/${ws}/commits`, { collection_id: col, message: 'bench' });
    while ((await call('GET', `/commits/${commit.id}`)).state !== 'awaiting_approval') await new Promise((r) => setTimeout(r, 100));
    const previewSeconds = (performance.now() - requested) / 1000;

    const handle = services.temporal.workflow.getHandle(commit.workflow_id);
    const samples: { at: number; progress: CommitProgress }[] = [];
    const approved = performance.now();
    await call('POST', `/commits/${commit.id}/approve`, {});
    for (;;) {
      const [state, progress] = await Promise.all([handle.query(commitStateQuery), handle.query(commitProgressQuery)]);
      samples.push({ at: (performance.now() - approved) / 1000, progress });
      if (state === 'committed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const applySeconds = (performance.now() - approved) / 1000;

    // Baseline: the same documents written straight through the driver, 100 at a time.
    const scratch = services.store.db('bench_commit_baseline');
    await scratch.dropDatabase();
    const drafts = await services.db.collection('artifacts').find({ collection_id: ws }).toArray();
    const baselineStart = performance.now();
    for (let i = 0; i < drafts.length; i += 100) {
      const slice = drafts.slice(i, i + 100);
      await scratch.collection('versions').insertMany(
        slice.map((d) => ({
          _id: `${randomUUID()}:1` as never,
          title: d.title,
          content: d.content,
          context: d.context,
          provenance: d.provenance,
        })),
      );
      await scratch.collection('heads').insertMany(slice.map((d) => ({ ...d, _id: randomUUID() as never })));
    }
    const baselineSeconds = (performance.now() - baselineStart) / 1000;

    const distinct = samples.filter((s, i) => i === 0 || s.progress.applied !== samples[i - 1]!.progress.applied);
    console.log(`\nCommit of ${size} new artifacts, engine: ${engines.storeEngine}, ${config.COMMIT_APPLY_BATCH} per apply step\n`);
    console.log('progress query while applying (seconds after approve → applied/total):');
    console.log(distinct.map((s) => `  ${s.at.toFixed(2)} s → ${s.progress.applied}/${s.progress.total}`).join('\n'));
    console.log(`\nrequest → awaiting_approval (preview of ${size}) | ${previewSeconds.toFixed(2)} s`);
    console.log(
      `approve → committed                          | ${applySeconds.toFixed(2)} s (goal ≤ ${goalSeconds} s: ${applySeconds <= goalSeconds ? 'met' : 'NOT met'})`,
    );
    console.log(`baseline: raw insertMany of the same documents | ${baselineSeconds.toFixed(2)} s`);
    console.log(`ratio platform / baseline                      | ${(applySeconds / baselineSeconds).toFixed(1)}`);
  } finally {
    await bench.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
