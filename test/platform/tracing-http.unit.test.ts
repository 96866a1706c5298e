// Outbound HTTP in traces (issue #22), without engines: the undici instrumentation sees both HTTP clients
// the platform has, the guarded client (src/net/outbound.ts, npm undici) and the openai package's fetch
// (Node's own), each request a child span of the call that made it and carrying its `traceparent`. A
// URL's path and query (where webhooks and MCP servers keep secrets) reach no span.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { trace } from '@opentelemetry/api';
import { z } from 'zod';
import { loadConfig } from '../../src/kernel/config/env.js';
import { createLogger } from '../../src/kernel/logging/logger.js';
import { Llm } from '../../src/llm/client.js';
import { createOutbound } from '../../src/net/outbound.js';
import { startTracing, type Tracing } from '../../src/observability/tracing.js';
import { eventually } from '../helpers/http.js';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string } }[];
}

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
let collector: Awaited<ReturnType<typeof serve>>;
let upstream: Awaited<ReturnType<typeof serve>>;
let tracing: Tracing;
let llm: Llm;

before(async () => {
  collector = await serve((_path, body) => {
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
  tracing = startTracing(config, 'worker', createLogger('silent'));
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
