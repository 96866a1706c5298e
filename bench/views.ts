// A view's results (issue #36) at scale: GET /artifacts/{id}/results with 5,000 artifacts in the
// view's workspace and 20,000 in others, for an unfiltered view, a filtered one (keeping 1 in 6) and the
// largest limit, next to GET /artifacts (one container's first page) as measured in the same run.
// Prints p50/p99 and req/s. `node --import tsx bench/views.ts` (BENCH_VIEW_ARTIFACTS, BENCH_REQUESTS).
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { appendKey, type ArtifactDoc } from '../src/store/artifacts.js';
import { refreshStatistics } from '../src/store/mongo.js';
import { load, type LoadResult } from './load.js';
import { benchPlatform } from './platform.js';

const inSource = Number(process.env.BENCH_VIEW_ARTIFACTS ?? 5000);
const elsewhere = inSource * 4;
const requests = Number(process.env.BENCH_REQUESTS ?? 300);
const concurrency = 4;

function artifacts(collectionId: string, owner: string, count: number): ArtifactDoc[] {
  let last: string | null = null;
  const start = Date.now() - count * 1000;
  return Array.from({ length: count }, (_, i) => {
    const at = new Date(start + ((i * 7919) % count) * 1000);
    return {
      _id: uuidv7(),
      title: `Note ${(i * 104729) % count}`,
      content_type: i % 10 === 0 ? 'image/png' : 'text/markdown',
      content: `# Note ${i}\n\n${'lorem ipsum '.repeat(40)}`,
      context: { tags: i % 3 === 0 ? ['alpha', 'beta'] : ['beta'], status: i % 2 ? 'open' : 'done' },
      collection_id: collectionId,
      container_kind: 'workspace' as const,
      order_key: (last = appendKey(last)),
      revision: 1,
      provenance: {
        created_by: owner,
        created_at: at,
        updated_by: owner,
        updated_at: at,
        source: { kind: 'api' as const, request_id: randomUUID() },
      },
    };
  });
}

async function main(): Promise<void> {
  const bench = await benchPlatform('bench-views', { EMBEDDINGS_PROVIDER: 'hashing' }, { worker: false });
  const { services, url, headers } = bench;
  try {
    const post = async (path: string, body: unknown) =>
      (await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json() as Promise<{ id: string }>;
    const me = (await (await fetch(`${url}/me`, { headers })).json()) as { id: string };
    const source = (await post('/workspaces', { name: 'source' })).id;
    const coll = services.db.collection<ArtifactDoc>('artifacts');
    const insert = async (docs: ArtifactDoc[]) => {
      for (let i = 0; i < docs.length; i += 500) await coll.insertMany(docs.slice(i, i + 500));
    };
    await insert(artifacts(source, me.id, inSource));
    for (let w = 0; w < 20; w++) await insert(artifacts((await post('/workspaces', { name: `other ${w}` })).id, me.id, elsewhere / 20));
    await refreshStatistics(services.db, ['artifacts']);
    const view = async (content: object) =>
      (
        await post('/artifacts', {
          title: 'v',
          content_type: 'application/vnd.platform.view+json',
          content: JSON.stringify(content),
          collection_id: source,
        })
      ).id;
    const sources = { workspaces: [source] };
    const cases: [string, string][] = [
      ['GET /artifacts?collection_id (first 50, the baseline)', `/artifacts?collection_id=${source}&limit=50`],
      ['view, updated_desc, limit 50', `/artifacts/${await view({ sources, limit: 50 })}/results`],
      [
        'view, tags+context+type filter keeping 1/6, limit 50',
        `/artifacts/${await view({ sources, limit: 50, filter: { tags: ['alpha'], context: { status: 'open' }, content_types: ['text/*'] } })}/results`,
      ],
      ['view, title_asc, limit 200', `/artifacts/${await view({ sources, sort: 'title_asc', limit: 200 })}/results`],
    ];
    console.log(`${inSource} artifacts in the view's workspace, ${elsewhere} in 20 others; ${requests} requests, ${concurrency} at once`);
    for (const [what, path] of cases) {
      const r: LoadResult = await load(requests, concurrency, async () => (await fetch(`${url}${path}`, { headers })).ok);
      console.log(`${what}: p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.perSecond.toFixed(0)} req/s, ${r.errors} errors`);
    }
  } finally {
    await bench.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
