// Calls a tool of a registered MCP server through REST (POST /artifacts/{id}/invoke) and follows the
// invocation (GET /invocations/{id}) until it ends, as a client of a slow tool does.
import assert from 'node:assert/strict';
import { eventually, type Api } from './http.js';

/** The server's result (a CallToolResult), whether the invoke answered it or the invocation had to be followed. */
export async function invokeTool(
  api: Api,
  server: string,
  name: string,
  args: Record<string, unknown>,
  timeoutMs = 120_000,
): Promise<Record<string, any>> {
  const r = await api.post(`/artifacts/${server}/invoke`, { name, arguments: args, wait_seconds: 5 });
  if (r.status === 200) return r.body.result;
  assert.equal(r.status, 202, r.text);
  return eventually(
    async () => {
      const got = await api.get(`/invocations/${r.body.invocation_id}`);
      return got.body.status === 'completed' ? got.body.result : undefined;
    },
    timeoutMs,
    `the ${name} invocation to end`,
  );
}
