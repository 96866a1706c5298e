// HTTP in traces (issue #22), without engines. Incoming: the request span's name (route template), its
// parent (the caller's traceparent, or only a link to it with OTEL_CONTINUE_INCOMING_TRACES=false) and
// status. Outgoing: the undici instrumentation sees both HTTP clients
// the platform has, the guarded client (src/net/outbound.ts, npm undici) and the openai package's fetch
// (Node's own), each request a child span of the call that made it and carrying its `traceparent`. A
// URL's path and query (where webhooks and MCP servers keep secrets) reach no span.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { trace } from '@opentelemetry/api';
import Router from '@koa/router';
import Koa from 'koa';
import { z } from 'zod';
import { loadConfig } from '../../src/kernel/config/env.js';
import { createLogger } from '../../src/kernel/logging/logger.js';
import { Llm } from '../../src/llm/client.js';
import { createOutbound } from '../../src/net/outbound.js';
import { httpTracing } from '../../src/observability/http-tracing.js';
import { startTracing, type Tracing } from '../../src/observability/tracing.js';
import { activeTracing, setActiveTracing } from '../../src/observability/tracing-state.js';
import { eventually } from '../helpers/http.js';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string } }[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number };
}

const SERVER = 2;
const CLIENT = 3;

/** A node:http server on loopback; `handle` answers, every request's headers are kept. */
async function serve(handle: (path: string, body: string) => { status: number; body: unknown }) {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers });
      const answer = handle(req.url ?? '', Buffer.concat(chunks).toString('utf8'));
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const spans: Span[] = [];
const logLines: string[] = [];
let refuseExports = false;
let collector: Awaited<ReturnType<typeof serve>>;
let upstream: Awaited<ReturnType<typeof serve>>;
let tracing: Tracing;
let llm: Llm;

before(async () => {
  collector = await serve((_path, body) => {
    if (refuseExports) return { status: 400, body: {} };
    const parsed = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };
    for (const rs of parsed.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
    return { status: 200, body: {} };
  });
  upstream = await serve((path) =>
    path.startsWith('/v1/chat/completions')
      ? {
          status: 200,
          body: {
            id: 'c1',
            object: 'chat.completion',
            created: 0,
            model: 'test-model',
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '{"ok":true}' } }],
          },
        }
      : { status: 200, body: { ok: true } },
  );
  const config = loadConfig({
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`,
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    LLM_MODEL: 'test-model',
  });
  const sink = new Writable({ write: (chunk, _enc, done) => (logLines.push(String(chunk)), done()) });
  tracing = startTracing(config, 'worker', createLogger('info', sink));
  llm = new Llm(config);
});
after(async () => {
  await tracing?.shutdown();
  collector?.server.close();
  upstream?.server.close();
});

const attr = (span: Span, key: string) => span.attributes.find((a) => a.key === key)?.value.stringValue;

describe('outbound HTTP spans', () => {
  it('traces the guarded client and the LLM client as children of the calling span, propagating traceparent', async () => {
    const outbound = createOutbound({ allow: ['127.0.0.0/8'], timeoutMs: 5000, maxResponseBytes: 65_536 });
    const parent = await trace.getTracer('test').startActiveSpan('caller', async (span) => {
      await outbound.fetchJson(`${upstream.url}/hooks/T000/B000/secret-path?token=secret-query`);
      await llm.structured({
        system: 's',
        user: 'u',
        name: 'answer',
        jsonSchema: { type: 'object' },
        parse: z.object({ ok: z.boolean() }),
      });
      span.end();
      return span.spanContext();
    });
    await outbound.close();

    const found = await eventually(async () => {
      await tracing.flush();
      const ours = spans.filter((s) => s.traceId === parent.traceId);
      const guarded = ours.find((s) => s.kind === CLIENT && s.name === 'GET' && s.parentSpanId === parent.spanId);
      const chat = ours.find((s) => s.kind === CLIENT && s.name === 'chat test-model' && s.parentSpanId === parent.spanId);
      const llmHttp = chat && ours.find((s) => s.kind === CLIENT && s.name === 'POST' && s.parentSpanId === chat.spanId);
      return guarded && chat && llmHttp && { guarded, chat, llmHttp };
    });
    assert.equal(attr(found.chat, 'gen_ai.request.model'), 'test-model');
    for (const span of [found.guarded, found.llmHttp]) assert.equal(attr(span, 'url.full'), upstream.url);
    assert.doesNotMatch(JSON.stringify(spans), /secret-(path|query)/);
    // Each upstream request carried its own span as the parent of whatever the upstream does.
    const [hook, chatRequest] = upstream.seen.slice(-2);
    assert.equal(hook?.headers.traceparent, `00-${parent.traceId}-${found.guarded.spanId}-01`);
    assert.equal(chatRequest?.headers.traceparent, `00-${parent.traceId}-${found.llmHttp.spanId}-01`);
  });

  it('makes no span and sends no traceparent for a request outside any trace', async () => {
    const outbound = createOutbound({ allow: ['127.0.0.0/8'], timeoutMs: 5000, maxResponseBytes: 65_536 });
    const before = spans.length;
    await outbound.fetchJson(`${upstream.url}/untraced`);
    await outbound.close();
    await tracing.flush();
    assert.equal(upstream.seen.at(-1)?.path, '/untraced');
    assert.equal(upstream.seen.at(-1)?.headers.traceparent, undefined);
    assert.equal(spans.length, before);
  });
});

describe('request spans', () => {
  let app: Server;
  let url: string;
  before(async () => {
    const router = new Router();
    router.get('/things/:id', (ctx) => {
      ctx.status = ctx.params.id === 'broken' ? 503 : 200;
      ctx.body = { ok: true };
    });
    app = new Koa().use(httpTracing).use(router.routes()).listen(0, '127.0.0.1');
    await new Promise((resolve) => app.once('listening', resolve));
    url = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  });
  after(() => app?.close());

  const caller = () => ({ traceId: randomHex(16), spanId: randomHex(8) });
  const randomHex = (bytes: number) =>
    [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
  /** The server span of the request answered with this traceresponse. */
  const serverSpan = (res: Response) =>
    eventually(async () => {
      await tracing.flush();
      const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(res.headers.get('traceresponse') ?? '') ?? [];
      return spans.find((s) => s.kind === SERVER && s.traceId === traceId && s.spanId === spanId);
    });

  it("continues the caller's trace, names the span by route template, marks a 5xx as an error", async () => {
    const from = caller();
    const ok = await fetch(`${url}/things/123?token=secret-query`, { headers: { traceparent: `00-${from.traceId}-${from.spanId}-01` } });
    const span = await serverSpan(ok);
    assert.equal(span.name, 'GET /things/:id');
    assert.equal(span.traceId, from.traceId);
    assert.equal(span.parentSpanId, from.spanId);
    assert.equal(attr(span, 'url.path'), '/things/123');
    assert.doesNotMatch(JSON.stringify(span), /secret-query/);
    assert.notEqual(span.status?.code, 2);
    const broken = await serverSpan(await fetch(`${url}/things/broken`));
    assert.equal(broken.status?.code, 2);
    const unrouted = await serverSpan(await fetch(`${url}/no/such/route/42`));
    assert.equal(unrouted.name, 'GET');
  });

  it('with OTEL_CONTINUE_INCOMING_TRACES=false, starts a trace of its own that links to the caller', async () => {
    const active = activeTracing()!;
    setActiveTracing({ ...active, continueIncoming: false });
    try {
      const from = caller();
      const span = await serverSpan(await fetch(`${url}/things/7`, { headers: { traceparent: `00-${from.traceId}-${from.spanId}-00` } }));
      assert.notEqual(span.traceId, from.traceId);
      assert.equal(span.parentSpanId ?? '', '');
      assert.deepEqual(
        span.links?.map((l) => [l.traceId, l.spanId]),
        [[from.traceId, from.spanId]],
      );
    } finally {
      setActiveTracing(active);
    }
  });
});

describe('export failures', () => {
  it('logs a refused export once, naming the endpoint, and drops the spans rather than holding them', async () => {
    refuseExports = true;
    try {
      // Two exports, both refused: one warning.
      trace.getTracer('test').startSpan('refused').end();
      await tracing.flush();
      trace.getTracer('test').startSpan('refused too').end();
      await tracing.flush();
      const warnings = await eventually(async () => {
        const found = logLines.filter((l) => l.includes('trace export failed'));
        return found.length > 0 && found;
      });
      assert.equal(warnings.length, 1, warnings.join(''));
      assert.equal(JSON.parse(warnings[0]!).endpoint, `${collector.url}/v1/traces`);
    } finally {
      refuseExports = false;
    }
    assert.ok(!spans.some((s) => s.name.startsWith('refused')));
  });
});
