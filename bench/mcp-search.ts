// `tools/call search` over /mcp next to `POST /artifacts/search`, in the same run, same queries,
// same token. Goal: the MCP path at least 0.8x the REST path's throughput.
import { load, type LoadResult } from './load.js';
import { benchPlatform } from './platform.js';

const count = Number(process.env.BENCH_REQUESTS ?? 2000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const words = ['turbine', 'blade', 'flutter', 'boundary', 'layer', 'shock', 'wave', 'pressure', 'heat', 'transfer', 'wing', 'lift'];

async function main(): Promise<void> {
  // Both paths embed the query the same way; the instant local embedder keeps the comparison on the transport.
  const bench = await benchPlatform('bench-mcp', { EMBEDDINGS_PROVIDER: 'hashing' }, { worker: false });
  const { url, headers } = bench;
  try {
    const ws = (await (await fetch(`${url}/workspaces`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench' }) })).json()).id;
    await load(300, 8, async (i) => {
      const text = Array.from({ length: 40 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' ');
      const res = await fetch(`${url}/artifacts`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ title: `Report ${i}`, content_type: 'text/plain', content: text, collection_id: ws }),
      });
      await res.arrayBuffer();
      return res.status === 201;
    });
    const query = (i: number) => `${words[i % words.length]} ${words[(i + 5) % words.length]}`;
    const rest = async (i: number) => {
      const res = await fetch(`${url}/artifacts/search`, { method: 'POST', headers, body: JSON.stringify({ query: query(i), limit: 10 }) });
      await res.arrayBuffer();
      return res.status === 200;
    };
    const mcp = async (i: number) => {
      const res = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { ...headers, accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'search', arguments: { query: query(i), limit: 10 } },
        }),
      });
      const body = await res.json();
      return res.status === 200 && !body.error && !body.result?.isError;
    };
    await load(200, concurrency, rest);
    await load(200, concurrency, mcp);
    const results: [string, LoadResult][] = [
      ['REST POST /artifacts/search', await load(count, concurrency, rest)],
      ['MCP tools/call search', await load(count, concurrency, mcp)],
    ];
    console.log(`\n${count} searches per row over 300 artifacts, ${concurrency} concurrent clients\n`);
    console.log('path                         |  req/s  p50 ms  p99 ms | errors');
    for (const [name, r] of results)
      console.log(
        `${name.padEnd(28)} | ${r.perSecond.toFixed(0).padStart(6)} ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)} | ${r.errors}`,
      );
    const ratio = results[1]![1].perSecond / results[0]![1].perSecond;
    console.log(`\nMCP / REST throughput: ${ratio.toFixed(2)} (goal ≥ 0.80: ${ratio >= 0.8 ? 'met' : 'NOT met'})`);
  } finally {
    await bench.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
