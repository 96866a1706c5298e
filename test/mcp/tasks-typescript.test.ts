// MCP tasks through the official TypeScript SDK (v2 client, @modelcontextprotocol/client): the
// extension is in the server's capabilities; call_server_tool of a slow tool (server-everything's
// long-running operation, over stdio in the worker) answers a task-capable client with a task whose id
// is the invocation workflow's business id, followed by tasks/get to the server's result;
// tasks/cancel cancels that workflow in Temporal; a call that carries a progress token and no tasks
// capability gets notifications/progress while it runs, then its result.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { createTaskSessionFromClient, resultFromTaskOutcome, type RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client';
import type { Api } from '../helpers/http.js';
import { eventually } from '../helpers/http.js';
import { registerServer } from '../helpers/mcp-servers.js';
import { envelope, postMcp } from '../helpers/mcp-raw.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const tasks = 'io.modelcontextprotocol/tasks';
const stdioEverything = {
  transport: { type: 'stdio', command: 'npx', args: ['--no-install', '@modelcontextprotocol/server-everything', 'stdio'] },
};

/** One request through the raw path, framed as a 2026-07-28 request of a tasks-capable client. */
async function raw(_client: Client, method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  const answer = await rawDispatch({ method, params: { ...params, _meta: envelope(true) } } as never);
  assert.equal(answer.kind, 'result', JSON.stringify(answer));
  return (answer as { result: Record<string, any> }).result;
}

let platform: TestPlatform;
let alice: Api & { userId: string };
let serverId: string;

before(async () => {
  platform = await startPlatform({ ALLOW_STDIO_MCP_SERVERS: 'true' }, { worker: true });
  alice = await platform.newUser();
  const ws = (await alice.post('/workspaces', { name: 'task tools' })).body.id as string;
  serverId = await registerServer(alice, ws, stdioEverything, 'everything (stdio)');
});
after(() => platform?.close());

async function connect(withTasks: boolean): Promise<Client> {
  const client = new Client(
    { name: 'tasks-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' }, capabilities: withTasks ? { extensions: { [tasks]: {} } } : {} },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${alice.token}` } },
    }),
  );
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  return client;
}

/**
 * The raw request path the tasks package asks its host for on 2026-07-28 (the SDK's own codec refuses
 * a `resultType: "task"`): one Streamable HTTP POST with the standard headers, as the SDK sends them.
 */
const rawDispatch: RawClientDispatch = async (request) => {
  // The package hands over the request (method, params with the framing's _meta); postMcp numbers it.
  const body = await postMcp(`${platform.url}/mcp`, alice.token!, request as never);
  return body.error ? { kind: 'error', error: body as never } : { kind: 'result', result: body.result as never };
};

const slowCall = (seconds: number) => ({
  name: 'call_server_tool',
  arguments: { server_id: serverId, name: 'trigger-long-running-operation', arguments: { duration: seconds, steps: seconds } },
});

describe('MCP tasks through the official TypeScript SDK (v2)', () => {
  it('lists the tasks extension among the capabilities', async () => {
    const client = await connect(true);
    try {
      assert.deepEqual(client.getServerCapabilities()?.extensions?.[tasks], {});
    } finally {
      await client.close();
    }
  });

  it('offers no task to a 2025-era client (TS SDK v1): not in its capabilities, and tasks/get is not served', async () => {
    const client = new LegacyClient({ name: 'legacy', version: '1.0.0' });
    await client.connect(
      new LegacyTransport(new URL(`${platform.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${alice.token}` } } }),
    );
    try {
      const capabilities = client.getServerCapabilities() as Record<string, any>;
      assert.equal(capabilities.extensions?.[tasks], undefined);
      assert.equal(capabilities.tasks, undefined);
      const listed = await client
        .request({ method: 'tasks/get', params: { taskId: 'commit-x' } } as never, z.looseObject({}))
        .catch((e: Error) => e);
      assert.ok(listed instanceof Error, 'tasks/get is not a 2025-era method here');
    } finally {
      await client.close();
    }
  });

  it('call_server_tool of a slow tool: a task under the invocation workflow id, which the tasks package follows to the result', async () => {
    const client = await connect(true);
    const session = createTaskSessionFromClient(client, {
      endpointId: 'platform',
      rawDispatch,
      v2RequestFraming: {
        protocolVersion: '2026-07-28',
        clientInfo: { name: 'tasks-test', version: '1.0.0' },
        clientCapabilities: { extensions: { [tasks]: {} } },
      },
    });
    try {
      const call = slowCall(3);
      const execution = await session.callTool(call.name, call.arguments);
      assert.equal(execution.kind, 'task', 'a task, not an immediate result');
      const taskId = (execution as { handle: { taskId: string } }).handle.taskId;
      assert.match(taskId, /^invoke-/);
      const described = await platform.services.temporal.workflow.getHandle(taskId).describe();
      assert.ok(['RUNNING', 'COMPLETED'].includes(described.status.name), 'the task is the invocation workflow');
      const { outcome } = await execution.settle();
      const result = resultFromTaskOutcome(outcome) as unknown as {
        structuredContent: { status: string; result: { content: { text: string }[] } };
      };
      assert.equal(result.structuredContent.status, 'completed');
      assert.match(result.structuredContent.result.content[0]!.text, /Long running operation completed/);
    } finally {
      await session.close();
      await client.close();
    }
  });

  it('tasks/cancel cancels the workflow; the task then reads cancelled', async () => {
    const client = await connect(true);
    try {
      const created = await raw(client, 'tools/call', slowCall(30));
      assert.equal(created.resultType, 'task', JSON.stringify(created));
      const taskId = created.taskId as string;
      assert.equal((await raw(client, 'tasks/cancel', { taskId })).resultType, 'complete');
      await eventually(
        async () => (await platform.services.temporal.workflow.getHandle(taskId).describe()).status.name === 'CANCELLED',
        30_000,
        'the workflow to be cancelled',
      );
      const task = await raw(client, 'tasks/get', { taskId });
      assert.equal(task.status, 'cancelled', JSON.stringify(task));
    } finally {
      await client.close();
    }
  });

  it('a client without the extension that asks for progress gets notifications/progress, then the result itself', async () => {
    const client = await connect(false);
    try {
      const seen: { progress: number; message?: string }[] = [];
      const result = await client.callTool(slowCall(5), { onprogress: (p) => void seen.push(p) });
      assert.equal(result.resultType ?? 'complete', 'complete');
      assert.equal((result.structuredContent as { status: string }).status, 'completed', JSON.stringify(result));
      assert.ok(seen.length >= 1, 'at least one progress notification');
      assert.match(seen[0]!.message ?? '', /call_server_tool: still running/);
      assert.deepEqual(
        seen.map((p) => p.progress),
        seen.map((_, i) => i + 1),
        'progress only goes up',
      );
    } finally {
      await client.close();
    }
  });
});
