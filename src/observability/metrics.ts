import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Every Prometheus series the platform defines (issue #22), in one registry. The API serves it at
 * `/metrics`, the worker on its own listener (WORKER_METRICS_ADDRESS); each process moves only the
 * series of what it does. Labels hold bounded sets only: route templates, tool and activity names,
 * outcomes, never a raw URL, id or message (the one id is an outbound MCP server's artifact id, as
 * many as servers are registered).
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

const registers = [metricsRegistry];
/** Latency buckets in seconds, 5 ms to 30 s. */
const latency = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpRequests = new Counter({
  name: 'platform_http_requests_total',
  help: 'HTTP requests answered, by route template, method and status.',
  labelNames: ['route', 'method', 'status'] as const,
  registers,
});
export const httpDuration = new Histogram({
  name: 'platform_http_request_duration_seconds',
  help: 'HTTP request latency until the response is handed to the client, by route template and method.',
  labelNames: ['route', 'method'] as const,
  buckets: latency,
  registers,
});

export const mcpToolCalls = new Counter({
  name: 'platform_mcp_tool_calls_total',
  help: 'Tool calls served at /mcp, by tool and outcome (ok, refused: a 4xx, failed: a 5xx).',
  labelNames: ['tool', 'outcome'] as const,
  registers,
});
export const mcpToolDuration = new Histogram({
  name: 'platform_mcp_tool_call_duration_seconds',
  help: 'Latency of tool calls served at /mcp, by tool.',
  labelNames: ['tool'] as const,
  buckets: latency,
  registers,
});

export const outboundCalls = new Counter({
  name: 'platform_outbound_calls_total',
  help: 'Calls to external MCP servers and the LLM, by kind, target (server id or model), operation and outcome.',
  labelNames: ['kind', 'target', 'operation', 'outcome'] as const,
  registers,
});
export const outboundDuration = new Histogram({
  name: 'platform_outbound_call_duration_seconds',
  help: 'Latency of calls to external MCP servers and the LLM, by kind, target and operation.',
  labelNames: ['kind', 'target', 'operation'] as const,
  buckets: latency,
  registers,
});

export const storageOperations = new Counter({
  name: 'platform_storage_operations_total',
  help: 'Storage calls (each cursor step counts), by collection, operation and outcome (ok, error, unavailable, deadline).',
  labelNames: ['collection', 'operation', 'outcome'] as const,
  registers,
});
export const storageDuration = new Histogram({
  name: 'platform_storage_operation_duration_seconds',
  help: 'Storage call latency, by collection and operation.',
  labelNames: ['collection', 'operation'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

export const searchDuration = new Histogram({
  name: 'platform_search_duration_seconds',
  help: 'Search latency (REST and the MCP search tool), by preset.',
  labelNames: ['preset'] as const,
  buckets: latency,
  registers,
});
export const searchCandidates = new Histogram({
  name: 'platform_search_retriever_candidates',
  help: 'Candidates each retriever gave a search, by retriever (lexical, semantic).',
  labelNames: ['retriever'] as const,
  buckets: [0, 1, 5, 10, 25, 50, 100, 250, 500, 1000],
  registers,
});

export const commitOutcomes = new Counter({
  name: 'platform_commit_outcomes_total',
  help: 'Commits that reached a final state: committed, rejected, expired, failed (counted by the worker that recorded it).',
  labelNames: ['outcome'] as const,
  registers,
});
export const invocationSteps = new Counter({
  name: 'platform_invocation_steps_total',
  help: 'Invocation steps run by the worker, by step (propose, apply, tool_call) and outcome; apply counts each action.',
  labelNames: ['step', 'outcome'] as const,
  registers,
});

export const activityExecutions = new Counter({
  name: 'platform_activity_executions_total',
  help: 'Activity attempts the worker ran, by activity type and outcome (completed, failed, cancelled).',
  labelNames: ['activity_type', 'outcome'] as const,
  registers,
});
export const activityDuration = new Histogram({
  name: 'platform_activity_duration_seconds',
  help: 'Activity attempt latency, by activity type.',
  labelNames: ['activity_type'] as const,
  buckets: [...latency, 60, 300],
  registers,
});

export const indexingBacklog = new Gauge({
  name: 'platform_indexing_backlog',
  help: 'Embeddings waiting: revisions in the embedding backlog, counted at scrape time (NaN when the store did not answer in time).',
  registers,
});
export const collectFailures = new Counter({
  name: 'platform_metrics_collect_failures_total',
  help: 'Scrape-time collections that failed or missed their deadline, by collector.',
  labelNames: ['collector'] as const,
  registers,
});

/** Every series name the registry exposes, a histogram's `_bucket`, `_sum` and `_count` included (the dashboard test checks its queries against these). */
export async function seriesNames(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const m of await metricsRegistry.getMetricsAsJSON()) {
    const type = String(m.type);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(m.name + suffix);
    else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(m.name + suffix);
    else names.add(m.name);
  }
  return names;
}
