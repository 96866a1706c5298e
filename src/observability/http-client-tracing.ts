import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';

/**
 * Outbound HTTP spans for undici: the guarded client (src/net/outbound.ts, npm undici) and Node's own
 * fetch (the LLM client) both publish on undici's diagnostics channels. Only inside a traced operation
 * (no root spans from background streams). A URL's path and query are left out: a webhook's or an MCP
 * server's URL may carry a secret there; the span keeps the scheme, host and port.
 */
export function outboundHttpInstrumentation(): UndiciInstrumentation {
  return new UndiciInstrumentation({
    requireParentforSpans: true,
    startSpanHook: (request) => {
      let origin = '';
      try {
        origin = new URL(request.origin).origin;
      } catch {
        // an origin undici accepted but URL does not: recorded as nothing rather than as written
      }
      return { 'url.full': origin, 'url.path': 'REDACTED', 'url.query': 'REDACTED' };
    },
  });
}
