// A view's results (issue #36) at scale: GET /artifacts/{id}/results with 5,000 artifacts in the
// view's workspace and 20,000 in others, for an unfiltered view, a filtered one (keeping 1 in 6) and the
// largest limit, next to GET /artifacts (one container's first page) as measured in the same run.
// Then the same baseline again while BENCH_VIEW_STREAMS results streams (default 200: 25 readers × 8) follow
// the view: what open streams cost everyone else. Prints p50/p99, req/s, and each p50 as a ratio of the
// baseline's. `node --import tsx bench/views.ts` (BENCH_VIEW_ARTIFACTS, BENCH_REQUESTS, BENCH_VIEW_STREAMS); `npm run bench` runs it.
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { appendKey, type ArtifactDoc } from '../src/store/artifacts.js';
import { refreshStatistics } from '../src/store/mongo.js';
import { load, type LoadResult } from './load.js';
import { eventStreams } from '../src/api/routes/event-stream.js';
import { benchPlatform } from './platform.js';

const inSource = Number(process.env.BENCH_VIEW_ARTIFACTS ?? 5000);
const elsewhere = inSource * 4;
const requests = Number(process.env.BENCH_REQUESTS ?? 300);
const concurrency = 4;
const streamsOpen = Number(process.env.BENCH_VIEW_STREAMS ?? 200);
/** Streams one person may hold (src/events/stream-slots.ts). */
const perReader = 8;

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
  const bench = await benchPlatform(
    'bench-views',
    { EMBEDDINGS_PROVIDER: 'hashing', AUTH_RATE_LIMIT_PER_MINUTE: '0', SIGN_IN_LOCK_AFTER: '0' },
    { worker: false },
  );
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
    const measure = (path: string, hdrs = headers) =>
      load(requests, concurrency, async () => (await fetch(`${url}${path}`, { headers: hdrs })).ok);
    const report = (what: string, r: LoadResult, base?: LoadResult) =>
      console.log(
        `${what}: p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.perSecond.toFixed(0)} req/s, ${r.errors} errors` +
          (base ? `; p50 ${(r.p50 / base.p50).toFixed(2)}× the baseline's` : ''),
      );
    // Warm-up (connections, plans, caches) so the first case measured, the baseline, is not the cold one.
    for (const [, path] of cases) await load(50, concurrency, async () => (await fetch(`${url}${path}`, { headers })).ok);
    let baseline: LoadResult | undefined;
    for (const [what, path] of cases) {
      const r = await measure(path);
      report(what, r, baseline);
      baseline ??= r;
    }
    // The baseline again just before the streams open (the machine may be busier or calmer by now), then with them open.
    const before = await measure(cases[0]![1]);
    report(`${cases[0]![0]}, again`, before);
    await streaming(url, headers, source, cases[1]![1].split('/')[2]!, async () => {
      report(`${cases[0]![0]} with ${streamsOpen} results streams open`, await measure(cases[0]![1]), before);
    });
    // The server lets go of the streams before the platform closes (a poll under way would meet a closed store).
    const slots = eventStreams(services);
    for (let waited = 0; slots.size > 0 && waited < 15_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
  } finally {
    await bench.close();
  }
}

/** Opens `streamsOpen` results streams of the view (readers sharing the source, 8 each), runs `during`, closes them. */
async function streaming(
  url: string,
  headers: Record<string, string>,
  source: string,
  viewId: string,
  during: () => Promise<void>,
): Promise<void> {
  const aborter = new AbortController();
  let opened = 0;
  try {
    for (let r = 0; opened < streamsOpen; r++) {
      const email = `reader-${r}-${randomUUID().slice(0, 8)}@example.test`;
      const password = randomUUID();
      const created = (await (
        await fetch(`${url}/users`, { method: 'POST', headers, body: JSON.stringify({ email, password }) })
      ).json()) as {
        id: string;
      };
      await fetch(`${url}/workspaces/${source}/shares`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ person_id: created.id, flags: 'R' }),
      });
      const login = (await (
        await fetch(`${url}/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password }),
        })
      ).json()) as { access_token: string };
      for (let i = 0; i < perReader && opened < streamsOpen; i++, opened++) {
        const res = await fetch(`${url}/artifacts/${viewId}/results/stream`, {
          headers: { authorization: `Bearer ${login.access_token}` },
          signal: aborter.signal,
        });
        if (res.status !== 200) throw new Error(`stream ${opened}: ${res.status} ${await res.text()}`);
        void res.body!.pipeTo(new WritableStream()).catch(() => undefined);
      }
    }
    // Past the first evaluations: what the streams cost while they wait.
    await new Promise((r) => setTimeout(r, 3000));
    await during();
  } finally {
    aborter.abort();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
