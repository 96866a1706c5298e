import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { Resource } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { Config } from '../kernel/config/env.js';
import type { Logger } from '../kernel/logging/logger.js';
import { outboundHttpInstrumentation } from './http-client-tracing.js';
import { setActiveTracing } from './tracing-state.js';

export interface Tracing {
  /** Sends what is buffered now (bounded by the export deadline). */
  flush(): Promise<void>;
  /** Flushes what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}

const off: Tracing = { flush: async () => {}, shutdown: async () => {} };
let started: Tracing | undefined;

/** Where spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces; none, no tracing. */
export function tracesEndpoint(config: Config): string | undefined {
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT) return `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
  return undefined;
}

/** OTEL_EXPORTER_OTLP_HEADERS (`a=b,c=d`, values URL-decoded as the OTel spec says) as an object. */
export function exportHeaders(raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const value = pair.slice(at + 1).trim();
    let decoded = value;
    try {
      decoded = decodeURIComponent(value);
    } catch {
      // not percent-encoded: taken as written
    }
    headers[pair.slice(0, at).trim()] = decoded;
  }
  return headers;
}

/** The exporter, with failed exports logged (at most once a minute: a collector that is down must not flood the logs). */
function loggedExporter(inner: SpanExporter, logger: Logger, endpoint: string): SpanExporter {
  let lastWarned = 0;
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
      inner.export(spans.map(withoutErrorText), (result) => {
        if (result.code !== ExportResultCode.SUCCESS && Date.now() - lastWarned > 60_000) {
          lastWarned = Date.now();
          logger.warn({ endpoint, spans: spans.length, err: result.error?.message }, 'trace export failed; spans dropped');
        }
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

/**
 * A span as exported: without error messages and stack traces (its status message, its exception
 * events' `exception.message` and `exception.stacktrace`), keeping the exception's type. A message
 * can quote content (a tool's answer, a model's reply, a server's error body), which the payload codec
 * keeps sealed in Temporal; the trace backend, maybe a third party's, must not get it in clear.
 */
export function withoutErrorText(span: ReadableSpan): ReadableSpan {
  const exceptions = span.events.some((e) => e.name === 'exception');
  if (!span.status.message && !exceptions) return span;
  const events = span.events.map((e) =>
    e.name === 'exception' && e.attributes
      ? {
          ...e,
          attributes: Object.fromEntries(
            Object.entries(e.attributes).filter(([k]) => k !== 'exception.message' && k !== 'exception.stacktrace'),
          ),
        }
      : e,
  );
  // The span's own methods (spanContext()) and fields stay reachable through the prototype.
  return Object.assign(Object.create(span) as ReadableSpan, {
    status: span.status.message ? { code: span.status.code, message: 'error (message withheld)' } : span.status,
    events,
  });
}

/** Bounds a flush or shutdown by the export deadline (plus a margin), so a stuck collector never holds a process. */
function bounded(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return Promise.race([work.catch(() => undefined), deadline]).finally(() => clearTimeout(timer));
}

/**
 * Starts the process's tracer provider: W3C trace context, AsyncLocalStorage context, spans batched
 * (a bounded queue; a full one drops spans rather than blocking) and sent over OTLP HTTP (JSON) with
 * a deadline per export; outbound HTTP (undici, so the guarded client and the LLM client's fetch) is
 * instrumented. Without an endpoint nothing is registered: no span is recorded and the hooks cost a
 * flag test. Once per process (the API and the worker in one process share it).
 */
export function startTracing(config: Config, service: 'api' | 'worker', logger: Logger): Tracing {
  if (started) return started;
  const endpoint = tracesEndpoint(config);
  if (!endpoint) return off;
  const timeoutMillis = config.OTEL_EXPORTER_OTLP_TIMEOUT;
  const shown = `${new URL(endpoint).origin}${new URL(endpoint).pathname}`; // never credentials or a query in a log line
  const exporter = new OTLPTraceExporter({ url: endpoint, headers: exportHeaders(config.OTEL_EXPORTER_OTLP_HEADERS), timeoutMillis });
  const processor = new BatchSpanProcessor(loggedExporter(exporter, logger, shown), {
    maxQueueSize: config.OTEL_BSP_MAX_QUEUE_SIZE,
    maxExportBatchSize: Math.min(512, config.OTEL_BSP_MAX_QUEUE_SIZE),
    scheduledDelayMillis: config.OTEL_BSP_SCHEDULE_DELAY,
    exportTimeoutMillis: timeoutMillis,
  });
  const resource = new Resource({ 'service.name': config.OTEL_SERVICE_NAME ?? `platform-${service}`, 'service.namespace': 'platform' });
  const provider = new NodeTracerProvider({
    resource,
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    // A caller-supplied value (a tool name, an error message) never makes a span unbounded.
    spanLimits: { attributeValueLengthLimit: 1024, attributeCountLimit: 64, eventCountLimit: 32 },
    spanProcessors: [processor],
  });
  provider.register({ contextManager: new AsyncLocalStorageContextManager(), propagator: new W3CTraceContextPropagator() });
  const unregister = registerInstrumentations({ tracerProvider: provider, instrumentations: [outboundHttpInstrumentation()] });
  setActiveTracing({ processor, resource, continueIncoming: config.OTEL_CONTINUE_INCOMING_TRACES ?? config.isDev });
  logger.info({ endpoint: shown, service: resource.attributes['service.name'] }, 'exporting traces over OTLP');
  const margin = timeoutMillis + 1000;
  started = {
    flush: () => bounded(provider.forceFlush(), margin),
    shutdown: async () => {
      unregister();
      await bounded(provider.shutdown(), margin);
      setActiveTracing(undefined);
    },
  };
  return started;
}
