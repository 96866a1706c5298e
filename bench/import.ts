// Bulk import (issue #33) on the platform as `npm start` runs it (worker and API as processes of their
// own, the default embedder): 10,000 short documents sent as one NDJSON import, timed to the last one
// found by a word of it (stored and lexically searchable) and to every vector stored (searchable by
// meaning), with GET /artifacts/{id} sampled meanwhile (request p99 while the import and its
// embeddings run). Baseline in the same run: the raw driver inserting the same documents (insertMany
// in batches of 500) into a scratch collection of the same store. Then 100 three-page text PDFs as one
// multipart import, timed to the last one found by a word of its last page.
// BENCH_IMPORT_DOCS (default 10000), BENCH_IMPORT_PDFS (default 100), BENCH_IMPORT_EMBED_MINUTES (the
// longest the bench waits for the vectors; default 15), EMBEDDINGS_PROVIDER to measure another embedder.
import { randomUUID } from 'node:crypto';
import { textPdfs } from './seed/pdfs.js';
import { rng, title, words } from './seed/text.js';
import { recordGoal } from './goals.js';
import { processPlatform } from './processes.js';

const size = Number(process.env.BENCH_IMPORT_DOCS ?? 10_000);
const pdfCount = Number(process.env.BENCH_IMPORT_PDFS ?? 100);
const embedMinutes = Number(process.env.BENCH_IMPORT_EMBED_MINUTES ?? 15);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Short documents: a title and 20–60 words, each with a token of its own (`marker<i>`) to find it by. */
function documents(n: number) {
  const random = rng(33);
  return Array.from({ length: n }, (_, i) => ({
    key: `doc-${i}`,
    title: title(random, i),
    content_type: 'text/plain',
    content: `${words(random, 20 + Math.floor(random() * 40)).join(' ')} marker${i}`,
  }));
}

async function main(): Promise<void> {
  const overrides: Record<string, string> = process.env.EMBEDDINGS_PROVIDER ? { EMBEDDINGS_PROVIDER: process.env.EMBEDDINGS_PROVIDER } : {};
  const platform = await processPlatform('bench-import', { IMPORT_MAX_ITEMS: String(Math.max(size, pdfCount)), ...overrides });
  const { url, headers, services } = platform;
  try {
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = (await res.json()) as Record<string, unknown>;
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const docs = documents(size);
    const pdfs = await textPdfs(pdfCount, 3);

    // Baseline: the raw driver, the same documents, shaped as artifacts, into a scratch collection.
    const scratch = services.db.collection(`bench_raw_${randomUUID().slice(0, 8)}`);
    const rawStart = performance.now();
    for (let i = 0; i < docs.length; i += 500) {
      const now = new Date();
      await scratch.insertMany(
        docs.slice(i, i + 500).map((d, j) => ({
          _id: randomUUID(),
          title: d.title,
          content_type: d.content_type,
          content: d.content,
          context: {},
          order_key: String(i + j).padStart(8, '0'),
          revision: 1,
          provenance: { created_at: now, updated_at: now },
        })) as never[],
        { ordered: false },
      );
    }
    const rawRate = size / ((performance.now() - rawStart) / 1000);
    await scratch.drop();

    // Requests meanwhile: a reader of another workspace's artifact, 10 a second.
    const other = (await call('POST', '/workspaces', { name: 'elsewhere' })).id as string;
    const probe = (await call('POST', '/artifacts', { title: 'probe', content_type: 'text/plain', content: 'probe', collection_id: other }))
      .id as string;
    const latencies: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const t = performance.now();
        await fetch(`${url}/artifacts/${probe}`, { headers }).then((r) => r.arrayBuffer());
        latencies.push(performance.now() - t);
        await sleep(100);
      }
    })();

    const ws = (await call('POST', '/workspaces', { name: 'imported' })).id as string;
    const started = performance.now();
    const reply = await fetch(`${url}/workspaces/${ws}/imports`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-ndjson' },
      body: docs.map((d) => JSON.stringify(d)).join('\n'),
    });
    const imp = (await reply.json()) as { id: string };
    if (reply.status !== 202) throw new Error(`import: ${reply.status} ${JSON.stringify(imp)}`);
    const accepted = (performance.now() - started) / 1000;
    let state: { state: string; counts: { created: number; failed: number } };
    do {
      await sleep(100);
      state = (await call('GET', `/imports/${imp.id}`)) as typeof state;
    } while (state.state === 'running');
    const completed = (performance.now() - started) / 1000;
    const last = `marker${size - 1}`;
    for (;;) {
      const hits = ((await call('POST', '/artifacts/search', { query: last, workspace_ids: [ws], limit: 1 })).results ?? []) as {
        title: string;
      }[];
      if (hits[0]?.title === docs[size - 1]!.title) break;
      await sleep(50);
    }
    const lexical = (performance.now() - started) / 1000;
    const lexicalRate = size / lexical;
    console.log(
      `import of ${size} documents: accepted in ${accepted.toFixed(1)} s, completed in ${completed.toFixed(1)} s ` +
        `(${state.counts.created} created, ${state.counts.failed} failed), lexically searchable in ${lexical.toFixed(1)} s: ` +
        `${lexicalRate.toFixed(0)} docs/s; raw driver ${rawRate.toFixed(0)} docs/s`,
    );
    recordGoal({
      row: 'import',
      what: `bulk import of ${size} short documents, stored and lexically searchable`,
      measured: `${lexicalRate.toFixed(0)} docs/s`,
      baseline: `raw driver insertMany ${rawRate.toFixed(0)} docs/s`,
      ratio: lexicalRate / rawRate,
      goal: '≥ 1,000 docs/s and ≥ 0.6× raw driver inserts',
      met: lexicalRate >= 1000 && lexicalRate / rawRate >= 0.6,
    });

    // Searchable by meaning: every imported artifact's vector stored (or the wait given up).
    const artifacts = services.db.collection('artifacts');
    const embedded = () => artifacts.countDocuments({ collection_id: ws, 'search.revision': 1 });
    const giveUp = Date.now() + embedMinutes * 60_000;
    let vectors = 0;
    while ((vectors = await embedded()) < size && Date.now() < giveUp) await sleep(1000);
    const semantic = (performance.now() - started) / 1000;
    sampling = false;
    await sampler;
    const sorted = [...latencies].sort((a, b) => a - b);
    const p99 = percentile(sorted, 99);
    const semanticRate = vectors / semantic;
    console.log(
      `${vectors} of ${size} vectors stored after ${semantic.toFixed(0)} s: ${semanticRate.toFixed(1)} docs/s end to end; ` +
        `GET /artifacts/{id} meanwhile p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (${sorted.length} requests)`,
    );
    recordGoal({
      row: 'import',
      what: `... and searchable by meaning (${platform.config.EMBEDDINGS_PROVIDER}${vectors < size ? `, ${vectors} of ${size} in ${embedMinutes} min` : ''})`,
      measured: `${semanticRate.toFixed(1)} docs/s, request p99 ${p99.toFixed(0)} ms`,
      goal: '≥ 100 docs/s end to end, request p99 ≤ 1 s meanwhile',
      met: vectors === size && semanticRate >= 100 && p99 <= 1000,
    });

    // PDFs: one multipart import, timed to a word of the last PDF's last page found.
    const form = new FormData();
    for (const pdf of pdfs) form.append('file', new Blob([new Uint8Array(pdf.bytes)], { type: 'application/pdf' }), pdf.name);
    const pdfWs = (await call('POST', '/workspaces', { name: 'pdfs' })).id as string;
    const { 'content-type': _json, ...auth } = headers;
    const pdfStart = performance.now();
    const pdfReply = await fetch(`${url}/workspaces/${pdfWs}/imports`, { method: 'POST', headers: auth, body: form });
    const pdfImport = (await pdfReply.json()) as { id: string };
    if (pdfReply.status !== 202) throw new Error(`PDF import: ${pdfReply.status} ${JSON.stringify(pdfImport)}`);
    const lastPage = pdfs.at(-1)!.pageTexts.at(-1)!.split('\n').at(-1)!.split(' ')[0]!;
    for (;;) {
      const hits = ((await call('POST', '/artifacts/search', { query: lastPage, workspace_ids: [pdfWs], limit: 1 })).results ??
        []) as unknown[];
      if (hits.length > 0) break;
      await sleep(50);
    }
    const pdfSeconds = (performance.now() - pdfStart) / 1000;
    const pdfState = (await call('GET', `/imports/${pdfImport.id}`)) as { counts: { created: number } };
    console.log(
      `${pdfCount} PDFs (3 pages each): last one searchable after ${pdfSeconds.toFixed(1)} s, ${pdfState.counts.created} created so far`,
    );
    recordGoal({
      row: 'import',
      what: `PDF import (${pdfCount} three-page text PDFs), each page's text searchable`,
      measured: `${(pdfCount / pdfSeconds).toFixed(1)} PDFs/s`,
      goal: '≥ 10 PDFs/s',
      met: pdfCount / pdfSeconds >= 10,
    });
  } finally {
    await platform.close();
  }
}

await main();
