// The cost of calling an external MCP tool through the platform (REST invoke → workflow → activity →
// pooled connection) next to a direct SDK client call to the same server, in the same run, one call
// at a time. Goal: at most 10 ms added at p50.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { everythingHttp } from '../test/helpers/mcp-servers.js';
import { load, type LoadResult } from './load.js';
import { benchPlatform } from './platform.js';

const count = Number(process.env.BENCH_CALLS ?? 300);

async function main(): Promise<void> {
  const server = await everythingHttp();
  const bench = await benchPlatform('bench-mcp-client', { EMBEDDINGS_PROVIDER: 'hashing', MCP_OUTBOUND_ALLOW: '127.0.0.0/8' });
  const direct = new Client({ name: 'bench-direct', version: '1.0.0' });
  try {
    const { url, headers } = bench;
    const ws = (await (await fetch(`${url}/workspaces`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench' }) })).json()).id;
    const created = await fetch(`${url}/artifacts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        title: 'everything',
        content_type: 'application/vnd.platform.mcp-server+json',
        content: JSON.stringify({ transport: { type: 'http', url: server.url } }),
        collection_id: ws,
      }),
    });
    const serverId = (await created.json()).id;
    await direct.connect(new StreamableHTTPClientTransport(new URL(server.url)));

    const viaSdk = async (i: number) => {
      const r = await direct.callTool({ name: 'echo', arguments: { message: `m${i}` } });
      return !r.isError;
    };
    const viaPlatform = async (i: number) => {
      const res = await fetch(`${url}/artifacts/${serverId}/invoke`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'echo', arguments: { message: `m${i}` } }),
      });
      const body = await res.json();
      return res.status === 200 && body.status === 'completed' && !body.result.isError;
    };
    await load(30, 1, viaSdk);
    await load(30, 1, viaPlatform);
    const results: [string, LoadResult][] = [
      ['direct SDK client callTool', await load(count, 1, viaSdk)],
      ['POST /artifacts/{id}/invoke', await load(count, 1, viaPlatform)],
    ];
    console.log(`\n${count} sequential echo calls per row against server-everything (Streamable HTTP)\n`);
    console.log('path                         |  p50 ms  p99 ms | errors');
    for (const [name, r] of results)
      console.log(`${name.padEnd(28)} | ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)} | ${r.errors}`);
    const [sdk, platform] = [results[0]![1], results[1]![1]];
    const added = platform.p50 - sdk.p50;
    console.log(
      `\nadded by the platform: p50 ${added.toFixed(1)} ms, p99 ${(platform.p99 - sdk.p99).toFixed(1)} ms (goal ≤ 10 ms at p50: ${added <= 10 ? 'met' : 'NOT met'})`,
    );
  } finally {
    await direct.close().catch(() => {});
    await bench.close();
    await server.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
