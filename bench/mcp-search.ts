// `tools/call search` over /mcp next to `POST /artifacts/search`, in the same run, same queries,
// same token: as a 2025-era client sends it (no envelope) and as a 2026-07-28 client does (the
// per-request `_meta` envelope and its headers). Goal: the MCP path at least 0.8x the REST path's
// throughput. BENCH_REQUESTS per row, BENCH_CONCURRENCY clients, BENCH_ROUNDS turns.
// The clients run in this process: an MCP client parses its answer (an error is a 200 with isError),
// the REST client only reads its body, so the MCP rows also carry their client's JSON parsing.
import { load, type LoadResult } from './load.js';
import { benchPlatform } from './platform.js';

const count = Number(process.env.BENCH_REQUESTS ?? 2000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const words = ['turbine', 'blade', 'flutter', 'boundary', 'layer', 'shock', 'wave', 'pressure', 'heat', 'transfer', 'wing', 'lift'];

/** Each path's `count` requests in `rounds` turns; latencies timed around each request, throughput over the path's own time. */
async function inTurns(
  count: number,
  concurrency: number,
  rounds: number,
  paths: [string, (i: number) => Promise<boolean>][],
): Promise<[string, LoadResult & { cpuMs: number }][]> {
  const per = Math.ceil(count / rounds);
  const runs = paths.map(() => ({ latencies: [] as number[], seconds: 0, errors: 0, cpu: 0 }));
  for (let r = 0; r < rounds; r++)
    for (let k = 0; k < paths.length; k++) {
      // Each round starts with the next path, so that no path always follows the same one (and its garbage).
      const p = (r + k) % paths.length;
      const send = paths[p]![1];
      const run = runs[p]!;
      const timed = async (i: number) => {
        const started = performance.now();
        try {
          return await send(r * per + i);
        } finally {
          run.latencies.push(performance.now() - started);
        }
      };
      const cpu = process.cpuUsage();
      const result = await load(per, concurrency, timed);
      const used = process.cpuUsage(cpu);
      run.cpu += (used.user + used.system) / 1000;
      run.seconds += result.seconds;
      run.errors += result.errors;
    }
  return runs.map((run, p) => {
    const sorted = run.latencies.sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    const result = {
      requests: sorted.length,
      seconds: run.seconds,
      perSecond: sorted.length / run.seconds,
      p50: at(0.5),
      p99: at(0.99),
      errors: run.errors,
      cpuMs: run.cpu / sorted.length,
    };
    return [paths[p]![0], result];
  });
}

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
    // The same call as a 2026-07-28 client sends it: the per-request _meta envelope and its headers.
    const modern = async (i: number) => {
      const res = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: {
          ...headers,
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'search',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: {
            name: 'search',
            arguments: { query: query(i), limit: 10 },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      });
      const body = await res.json();
      return res.status === 200 && !body.error && !body.result?.isError;
    };
    const paths: [string, (i: number) => Promise<boolean>][] = [
      ['REST POST /artifacts/search', rest],
      ['MCP tools/call search', mcp],
      ['MCP 2026-07-28 tools/call', modern],
    ];
    for (const [, send] of paths) await load(200, concurrency, send);
    // Taken in turns (round by round, each path in each round, in a rotating order), so that the
    // machine's other load, which comes and goes on two shared cores, weighs on every path alike.
    const results = await inTurns(count, concurrency, rounds, paths);
    console.log(`\n${count} searches per row over 300 artifacts, ${concurrency} concurrent clients, in ${rounds} rounds taken in turns\n`);
    // CPU per request of this process (the API and its clients; the store engine is a process of its own):
    // steadier than throughput when other work shares the two cores.
    console.log('path                         |  req/s  p50 ms  p99 ms | CPU ms/req | errors');
    for (const [name, r] of results)
      console.log(
        `${name.padEnd(28)} | ${r.perSecond.toFixed(0).padStart(6)} ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)} | ${r.cpuMs.toFixed(2).padStart(10)} | ${r.errors}`,
      );
    const ratio = results[1]![1].perSecond / results[0]![1].perSecond;
    console.log(`\nMCP / REST throughput: ${ratio.toFixed(2)} (goal ≥ 0.80: ${ratio >= 0.8 ? 'met' : 'NOT met'})`);
    console.log(`MCP 2026-07-28 / REST throughput: ${(results[2]![1].perSecond / results[0]![1].perSecond).toFixed(2)}`);
    const cpu = (r: number) => (results[0]![1].cpuMs / results[r]![1].cpuMs).toFixed(2);
    console.log(`REST / MCP CPU per request: ${cpu(1)} (2025 era), ${cpu(2)} (2026-07-28)`);
  } finally {
    await bench.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
