// One MCP request of protocol 2026-07-28 as a client's SDK frames it over Streamable HTTP: the standard
// headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name mirroring the tool name or task id) and the
// per-request `_meta` envelope. For what the SDKs cannot send themselves (a task result through the TS
// SDK v2's codec) and for tests that look at the wire.

/** The `_meta` envelope of a 2026-07-28 request; `tasks` declares the tasks extension among the client's capabilities. */
export function envelope(tasks: boolean): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'platform-tests', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { 'io.modelcontextprotocol/tasks': {} } } : {},
  };
}

let ids = 0;

/** POSTs one JSON-RPC request (`params` sent as given, `_meta` included or not) and answers the parsed body. */
export async function postMcp(
  url: string,
  token: string,
  request: { method: string; params: Record<string, unknown>; id?: number | string },
): Promise<{ result?: Record<string, any>; error?: { code: number; message: string; data?: unknown } }> {
  const { method, params } = request;
  const name = method === 'tools/call' ? params.name : params.taskId;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: request.id ?? ++ids, method, params }),
    signal: AbortSignal.timeout(60_000),
  });
  return (await res.json()) as never;
}
