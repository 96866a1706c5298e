import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type TextMapGetter } from '@opentelemetry/api';
import type { Middleware } from 'koa';
import { activeTracing } from './tracing-state.js';

const tracer = trace.getTracer('platform-http');

/** Reads one request header for the propagator (Koa's headers are lower-cased; a repeated one is taken first). */
const headerGetter: TextMapGetter<Record<string, string | string[] | undefined>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  },
};

/**
 * Opens the request's SERVER span, continuing an incoming W3C `traceparent` (a malformed one is ignored:
 * the request starts its own trace), or, with OTEL_CONTINUE_INCOMING_TRACES=false, only linking to it.
 * The span is named by method and route template (`POST /artifacts/:id/invoke`), never by the raw path,
 * whose ids would make every name unique; the query string is never recorded (it may carry codes or
 * tokens). 5xx answers mark the span as an error. The answer carries `traceresponse` (W3C Trace Context
 * level 2), for a caller to quote when reporting a problem.
 */
export const httpTracing: Middleware = async (ctx, next) => {
  const tracing = activeTracing();
  if (!tracing) return next();
  const incoming = propagation.extract(ROOT_CONTEXT, ctx.headers, headerGetter);
  const caller = trace.getSpanContext(incoming);
  // Not continued (OTEL_CONTINUE_INCOMING_TRACES=false): a trace of the request's own, linked to the caller's.
  const parent = tracing.continueIncoming ? incoming : ROOT_CONTEXT;
  const links = !tracing.continueIncoming && caller ? [{ context: caller }] : [];
  const span = tracer.startSpan(
    ctx.method,
    { kind: SpanKind.SERVER, links, attributes: { 'http.request.method': ctx.method, 'url.path': ctx.path, 'url.scheme': ctx.protocol } },
    parent,
  );
  const { traceId, spanId, traceFlags } = span.spanContext();
  ctx.set('traceresponse', `00-${traceId}-${spanId}-0${traceFlags & 1}`);
  try {
    await context.with(trace.setSpan(parent, span), next);
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
    if (typeof route === 'string') {
      span.updateName(`${ctx.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', ctx.status);
    if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
};
