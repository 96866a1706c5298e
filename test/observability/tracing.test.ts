// Traces end to end (issue #22): an in-test OTLP HTTP receiver gets one trace where the HTTP request, the
// workflow it starts, the workflow's activity, the activity's MCP call to a real external server
// (server-everything over Streamable HTTP) and that call's outbound HTTP request share a trace id, each
// span the child of the one before; a log line written during the request carries the trace id.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/kernel/logging/logger.js';
import { startTracing, type Tracing } from '../../src/observability/tracing.js';
import { eventually, type Api } from '../helpers/http.js';
import { everythingHttp, registerServer, type Started } from '../helpers/mcp-servers.js';
import { startPlatform, testConfig, type TestPlatform } from '../helpers/platform.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
  status?: { code?: number };
  service: string;
}

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

/** The OTLP HTTP receiver: every span of every JSON export it was sent, with its resource's service name. */
function otlpReceiver(): Promise<{ server: Server; url: string; spans: OtlpSpan[]; paths: string[] }> {
  const spans: OtlpSpan[] = [];
  const paths: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeSpans: { spans: Omit<OtlpSpan, 'service'>[] }[];
        }[];
      };
      for (const rs of body.resourceSpans) {
        const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ ...s, service });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, paths }),
    ),
  );
}

const attr = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value ? (value.stringValue ?? value.intValue ?? value.boolValue) : undefined;
};

let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
let tracing: Tracing;
let platform: TestPlatform;
let everything: Started;
let alice: Api;
let serverId: string;
let ws: string;

before(async () => {
  receiver = await otlpReceiver();
  // Before the platform: the tracer provider is the process's, shared by the API and the worker run here.
  const config = testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`, OTEL_BSP_SCHEDULE_DELAY: '100' });
  tracing = startTracing(config, 'api', createLogger('silent'));
  platform = await startPlatform({ MCP_OUTBOUND_ALLOW: '127.0.0.0/8,::1/128' });
  everything = await everythingHttp();
  alice = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'traced' })).body.id as string;
  serverId = await registerServer(alice, ws, { transport: { type: 'http', url: everything.url } }, 'everything (http)');
});
after(async () => {
  await platform?.close();
  await tracing?.shutdown();
  await everything?.close();
  receiver?.server.close();
});

describe('traces', () => {
  it('puts the request, its workflow, the activity, the MCP call and its HTTP request in one trace, each a child of the last', async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const r = await alice.request('POST', `/artifacts/${serverId}/invoke`, {
      body: { name: 'get-sum', arguments: { a: 2, b: 3 } },
      headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'completed', r.text);
    assert.match(r.headers.get('traceresponse') ?? '', new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const find = (spans: OtlpSpan[], test: (s: OtlpSpan) => boolean) => spans.find((s) => s.traceId === traceId && test(s));
    const chain = await eventually(
      async () => {
        await tracing.flush();
        const spans = receiver.spans;
        const request = find(spans, (s) => s.kind === SERVER && s.parentSpanId === callerSpan);
        if (!request) return undefined;
        const start = find(spans, (s) => s.name.startsWith('StartWorkflow:') && s.parentSpanId === request.spanId);
        if (!start) return undefined;
        const run = find(spans, (s) => s.name.startsWith('RunWorkflow:') && s.parentSpanId === start.spanId);
        if (!run) return undefined;
        const schedule = find(spans, (s) => s.name.startsWith('StartActivity:') && s.parentSpanId === run.spanId);
        if (!schedule) return undefined;
        const activity = find(spans, (s) => s.name.startsWith('RunActivity:') && s.parentSpanId === schedule.spanId);
        if (!activity) return undefined;
        const mcp = find(spans, (s) => s.kind === CLIENT && s.name === 'tools/call get-sum' && s.parentSpanId === activity.spanId);
        if (!mcp) return undefined;
        const http = find(spans, (s) => s.kind === CLIENT && s.name === 'POST' && s.parentSpanId === mcp.spanId);
        return http && { request, start, run, schedule, activity, mcp, http };
      },
      20_000,
      'the whole chain of spans',
    ).catch((err: Error) => {
      const ours = receiver.spans.filter((s) => s.traceId === traceId);
      throw new Error(`${err.message}; spans of the trace: ${JSON.stringify(ours.map((s) => [s.name, s.kind, s.spanId, s.parentSpanId]))}`);
    });

    // The request span: named by its route template, never by the raw path and its ids.
    assert.equal(chain.request.name, 'POST /artifacts/:id/invoke');
    assert.equal(attr(chain.request, 'http.route'), '/artifacts/:id/invoke');
    assert.equal(Number(attr(chain.request, 'http.response.status_code')), 200);
    assert.equal(chain.request.service, 'platform-api');
    assert.equal(chain.start.name, 'StartWorkflow:mcpRun');
    // The MCP call's span names the server, the operation and the tool.
    assert.equal(attr(chain.mcp, 'mcp.server.id'), serverId);
    assert.equal(attr(chain.mcp, 'mcp.method.name'), 'tools/call');
    assert.equal(attr(chain.mcp, 'gen_ai.tool.name'), 'get-sum');
    assert.notEqual(chain.mcp.status?.code, ERROR);
    // The outbound HTTP request (the guarded client, seen by the undici instrumentation): origin only, no path.
    assert.equal(attr(chain.http, 'url.full'), new URL(everything.url).origin);
    assert.equal(attr(chain.http, 'url.path'), 'REDACTED');
    assert.ok(
      receiver.paths.every((p) => p.startsWith('POST /v1/traces application/json')),
      receiver.paths.join(', '),
    );

    // A log line written during the request (its request line) carries the trace id and the request's span.
    const line = platform.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'request' && l.trace_id === traceId);
    assert.ok(line, 'no request log line with the trace id');
    assert.equal(line.span_id, chain.request.spanId);
    assert.equal(line.path, `/artifacts/${serverId}/invoke`);
  });

  it("carries a write's trace into the signal it sends its workspace's event workflow, and the workflow's handling of it", async () => {
    const traceId = randomBytes(16).toString('hex');
    const r = await alice.request('POST', '/artifacts', {
      body: { title: 'Traced', content_type: 'text/markdown', content: '# traced', collection_id: ws },
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    assert.equal(r.status, 201, r.text);
    const found = await eventually(
      async () => {
        await tracing.flush();
        const ours = receiver.spans.filter((s) => s.traceId === traceId);
        const request = ours.find((s) => s.kind === SERVER);
        const byId = new Map(ours.map((s) => [s.spanId, s]));
        const under = (s: OtlpSpan, ancestor: OtlpSpan): boolean =>
          s.parentSpanId === ancestor.spanId ||
          (!!s.parentSpanId && !!byId.get(s.parentSpanId) && under(byId.get(s.parentSpanId)!, ancestor));
        const signal = request && ours.find((s) => /^Signal(WithStart)?Workflow:workspaceEvents$/.test(s.name) && under(s, request));
        const handled = signal && ours.find((s) => s.name.startsWith('HandleSignal:') && s.parentSpanId === signal.spanId);
        return handled && { request, signal, handled };
      },
      20_000,
      'the signal and its handling',
    );
    assert.equal(found.request.name, 'POST /artifacts');
  });

  it("marks a failed tool call's span as an error", async () => {
    const traceId = randomBytes(16).toString('hex');
    const r = await alice.request('POST', `/artifacts/${serverId}/invoke`, {
      body: { name: 'no-such-tool', arguments: {} },
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.result.isError, true, r.text);
    const span = await eventually(async () => {
      await tracing.flush();
      return receiver.spans.find((s) => s.traceId === traceId && s.name === 'tools/call no-such-tool');
    });
    assert.equal(span.status?.code, ERROR);
  });

  it('starts a trace of its own for a request without traceparent, or with a malformed one', async () => {
    const r = await alice.request('GET', '/workspaces', { headers: { traceparent: '00-not-a-trace-id-01' } });
    assert.equal(r.status, 200);
    const [, traceId] = /^00-([0-9a-f]{32})-/.exec(r.headers.get('traceresponse') ?? '') ?? [];
    assert.ok(traceId, 'no traceresponse header');
    const span = await eventually(async () => {
      await tracing.flush();
      return receiver.spans.find((s) => s.traceId === traceId && s.kind === SERVER);
    });
    assert.equal(span.name, 'GET /workspaces');
    assert.equal(span.parentSpanId ?? '', '');
  });
});
