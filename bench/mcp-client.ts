// The cost of calling an external MCP tool through the platform (REST invoke → workflow → activity →
// pooled connection) next to a direct SDK client call to the same server, in the same run, one call
// at a time. Goals (issue #23): at most 10 ms added at p50, and at most 1.3× for a 20 ms tool.
// Two registrations of the same server: one with the default call timeout (the call is a regular
// activity, with progress heartbeats), one with `timeout_seconds: 10` (within MCP_CALL_LOCAL_MAX_SECONDS:
// the call is a local activity, made within the run's first workflow task).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { everythingHttp } from '../test/helpers/mcp-servers.js';
import { recordGoal } from './goals.js';
import { load, type LoadResult } from './load.js';
import { benchPlatform } from './platform.js';

const count = Number(process.env.BENCH_CALLS ?? 300);
/** A tool that takes 20 ms: server-everything's long-running operation, one step. */
const slow = { name: 'trigger-long-running-operation', arguments: { duration: 0.02, steps: 1 } };

async function main(): Promise<void> {
  const server = await everythingHttp();
  const bench = await benchPlatform('bench-mcp-client', { EMBEDDINGS_PROVIDER: 'hashing', MCP_OUTBOUND_ALLOW: '127.0.0.0/8' });
  const direct = new Client({ name: 'bench-direct', version: '1.0.0' });
  try {
    const { url, headers } = bench;
    const ws = (await (await fetch(`${url}/workspaces`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench' }) })).json()).id;
    const register = async (title: string, extra: Record<string, unknown>) => {
      const created = await fetch(`${url}/artifacts`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          title,
          content_type: 'application/vnd.platform.mcp-server+json',
          content: JSON.stringify({ transport: { type: 'http', url: server.url }, ...extra }),
          collection_id: ws,
        }),
      });
      return (await created.json()).id as string;
    };
    const regular = await register('everything', {});
    const short = await register('everything, short calls', { timeout_seconds: 10 });
    await direct.connect(new StreamableHTTPClientTransport(new URL(server.url)));

    // The platform asks for progress (a progress token): so does the direct call, for the same exchange.
    const viaSdk = (call: (i: number) => { name: string; arguments: Record<string, unknown> }) => async (i: number) =>
      !(await direct.callTool(call(i), undefined, { onprogress: () => {} })).isError;
    const viaPlatform =
      (serverId: string, call: (i: number) => { name: string; arguments: Record<string, unknown> }) => async (i: number) => {
        const res = await fetch(`${url}/artifacts/${serverId}/invoke`, { method: 'POST', headers, body: JSON.stringify(call(i)) });
        const body = await res.json();
        return res.status === 200 && body.status === 'completed' && !body.result.isError;
      };
    const echo = (i: number) => ({ name: 'echo', arguments: { message: `m${i}` } });
    const twenty = () => slow;
    await load(30, 1, viaSdk(echo));
    await load(30, 1, viaPlatform(regular, echo));
    await load(30, 1, viaPlatform(short, echo));
    const rows: [string, LoadResult][] = [
      ['echo: direct SDK callTool', await load(count, 1, viaSdk(echo))],
      ['echo: invoke, regular activity', await load(count, 1, viaPlatform(regular, echo))],
      ['echo: invoke, local activity', await load(count, 1, viaPlatform(short, echo))],
      ['20 ms tool: direct SDK', await load(count, 1, viaSdk(twenty))],
      ['20 ms tool: invoke, regular', await load(count, 1, viaPlatform(regular, twenty))],
      ['20 ms tool: invoke, local', await load(count, 1, viaPlatform(short, twenty))],
    ];
    console.log(`\n${count} sequential calls per row against server-everything (Streamable HTTP)\n`);
    console.log('path                            |  p50 ms  p99 ms | errors');
    for (const [name, r] of rows)
      console.log(`${name.padEnd(31)} | ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)} | ${r.errors}`);
    const at = (i: number) => rows[i]![1];
    console.log('');
    for (const [i, how] of [
      [1, 'regular activity (default timeout)'],
      [2, 'local activity (timeout_seconds ≤ MCP_CALL_LOCAL_MAX_SECONDS)'],
    ] as const) {
      const added = at(i).p50 - at(0).p50;
      console.log(
        `echo, ${how}: added p50 ${added.toFixed(1)} ms, p99 ${(at(i).p99 - at(0).p99).toFixed(1)} ms (goal ≤ 10 ms at p50: ${added <= 10 ? 'met' : 'NOT met'})`,
      );
    }
    for (const [i, how] of [
      [4, 'regular activity'],
      [5, 'local activity'],
    ] as const) {
      const ratio = at(i).p50 / at(3).p50;
      console.log(`20 ms tool, ${how}: ${ratio.toFixed(2)}x the direct call at p50 (goal ≤ 1.3x: ${ratio <= 1.3 ? 'met' : 'NOT met'})`);
    }
    for (const [i, how] of [
      [2, 'local activity, timeout_seconds ≤ 10'],
      [1, 'regular activity, default timeout'],
    ] as const) {
      const added = at(i).p50 - at(0).p50;
      recordGoal({
        row: 'tool-call',
        what: `MCP tool call (echo) added over a direct SDK call, p50 (${how})`,
        measured: `+${added.toFixed(1)} ms`,
        baseline: `direct SDK callTool p50 ${at(0).p50.toFixed(1)} ms`,
        ratio: at(i).p50 / at(0).p50,
        goal: '≤ +10 ms at p50',
        met: added <= 10,
      });
    }
    for (const [i, how] of [
      [5, 'local activity'],
      [4, 'regular activity'],
    ] as const) {
      const ratio = at(i).p50 / at(3).p50;
      recordGoal({
        row: 'tool-call',
        what: `20 ms tool through invoke, p50 (${how})`,
        measured: `${at(i).p50.toFixed(1)} ms`,
        baseline: `direct SDK p50 ${at(3).p50.toFixed(1)} ms`,
        ratio,
        goal: '≤ 1.3× the direct call',
        met: ratio <= 1.3,
      });
    }
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
