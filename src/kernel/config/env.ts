import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');
const port = z.coerce.number({ error: 'must be a port number (0-65535)' }).int('must be a port number (0-65535)').min(0).max(65535);

/** Every environment variable the platform reads. `.env.example` lists the same names and defaults. */
export const envSchema = z.object({
  PLATFORM_ENV: z.enum(['development', 'production']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(8080),
  PLATFORM_API_URI: z.url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  /**
   * The store: `mongodb://` / `mongodb+srv://` (MongoDB, Atlas) or `postgres://` (the embedded store on
   * PostgreSQL, what `npm start` runs). MONGODB_URI is the older name, still read.
   */
  STORE_URI: z
    .string()
    .regex(/^(mongodb(\+srv)?|postgres(ql)?):\/\//, 'must be a mongodb://, mongodb+srv:// or postgres:// URI')
    .optional(),
  MONGODB_URI: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URI (a postgres:// store goes in STORE_URI)')
    .optional(),
  /** Connections per process to a PostgreSQL store (the embedded one, or STORE_URI=postgres://). */
  STORE_POOL_SIZE: z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(1).max(500).default(10),
  MONGODB_DB: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,63}$/, 'must be a plain database name')
    .default('platform'),
  /** The deadline of every storage call, in ms: a request whose storage does not answer gets 503 storage-unavailable. */
  STORAGE_TIMEOUT_MS: z.coerce
    .number({ error: 'must be a number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(100)
    .max(600_000)
    .default(10_000),
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^\s:]+:\d+$/, 'must be host:port')
    .optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('platform'),
  /** Invocations started in a process that also runs a worker start eagerly on it (docs/decisions.md, issue #23). */
  TEMPORAL_EAGER_START: bool.default(true),
  /** Single-node mode: the API process also runs the platform worker (every task queue, the event sweeper), so invocations start eagerly on it. */
  API_RUNS_WORKER: bool.default(false),
  TEMPORAL_TLS: bool.default(false),
  TEMPORAL_WORKFLOW_BUNDLE: z.string().min(1).optional(),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY_PATH: z.string().min(1).optional(),
  PLATFORM_MASTER_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
    .optional(),
  PLATFORM_PREVIOUS_MASTER_KEYS: z.string().optional(),
  /** The codec server (issue #22): browser origins of the Temporal UI allowed to call /codec/*, comma-separated (none: no CORS). */
  CODEC_ALLOWED_ORIGINS: z.string().default(''),
  /** The most payloads one /codec/encode or /codec/decode request may carry (the body is also bounded by MAX_BODY_BYTES). */
  CODEC_MAX_PAYLOADS: z.coerce.number().int().min(1).max(10_000).default(1000),
  PLATFORM_ADMIN_EMAIL: z.email().optional(),
  PLATFORM_ADMIN_PASSWORD: z.string().min(12, 'must be at least 12 characters').optional(),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86400).default(3600),
  SIGNING_KEY_ROTATION_DAYS: z.coerce.number().int().min(0).default(30),
  ALLOW_STDIO_MCP_SERVERS: bool.default(false),
  /** The operators' stdio launch catalog: comma-separated JSON files, later ones adding entries. */
  STDIO_CATALOG_PATHS: z.string().min(1).default('config/stdio-catalog.json'),
  STDIO_SANDBOX_BWRAP: z.string().min(1).optional(),
  COMMIT_EXPIRY_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(90 * 86400)
    .default(7 * 86400),
  COMMIT_APPLY_BATCH: z.coerce.number().int().min(1).max(1000).default(100),
  COMMIT_MAX_ARTIFACTS: z.coerce.number().int().min(1).max(5000).default(2000),
  /** External OpenID Connect providers for human sign-in: a JSON array (identity/external-idp/config.ts). */
  IDENTITY_PROVIDERS: z.string().default(''),
  MCP_ALLOWED_ORIGINS: z.string().default(''),
  MCP_ALLOWED_HOSTS: z.string().default(''),
  MCP_OUTBOUND_ALLOW: z.string().default(''),
  /**
   * Whether outbound calls (MCP servers, webhooks, URL imports, authorizers, identity providers) may
   * reach loopback (127.0.0.0/8, ::1), as MCP_OUTBOUND_ALLOW listing it would. Unset: true in
   * development (a developer's own servers and receivers on their machine), false in production.
   * Private, link-local and metadata addresses are never covered by it (issue #37).
   */
  MCP_OUTBOUND_LOOPBACK: bool.optional(),
  OAUTH_METADATA_DOCUMENT_ALLOW: z.string().default(''),
  MCP_OUTBOUND_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  MCP_OUTBOUND_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  MCP_CALL_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  MCP_CALL_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  /** A tool call whose attempt timeout is at most this runs as a local activity (no progress heartbeats); 0: never. */
  MCP_CALL_LOCAL_MAX_SECONDS: z.coerce.number().int().min(0).max(3600).default(10),
  MCP_INVOKE_WAIT_SECONDS: z.coerce.number().min(0).max(120).default(25),
  /**
   * SPEC §4.6 on_create (issue #37): how long a create waits for the type server's verdict before it
   * answers 503 type-server-unavailable and stores nothing.
   */
  ON_CREATE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(120).default(20),
  MCP_CONNECTION_IDLE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  MCP_CATALOG_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  MCP_RESULT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1536 * 1024)
    .default(512 * 1024),
  EVENTS_CONTINUE_AS_NEW_AFTER: z.coerce.number().int().min(10).default(500),
  /** The outbox relay (issue #21): hand a write's event on right after it (off: the sweeper alone does, after the grace). */
  EVENT_RELAY_INLINE: bool.default(true),
  /** How long an event may wait for its write's fast path before the worker's sweeper relays it, and how often it looks. */
  EVENT_RELAY_GRACE_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  EVENT_RELAY_SWEEP_MS: z.coerce.number().int().min(50).max(600_000).default(1_000),
  /** Tier 3 subscriptions (issue #21): webhook deadline, retry backoff, pause after this many failed attempts, safety-net poll. */
  SUBSCRIPTION_DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  SUBSCRIPTION_RETRY_INITIAL_MS: z.coerce.number().int().min(10).max(600_000).default(5_000),
  SUBSCRIPTION_RETRY_MAX_MS: z.coerce.number().int().min(10).max(3_600_000).default(600_000),
  SUBSCRIPTION_PAUSE_AFTER_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(12),
  SUBSCRIPTION_POLL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** The loop guard (issue #21): an event caused by this many nested automation runs triggers none; 0 turns automations off. */
  AUTOMATION_MAX_DEPTH: z.coerce.number().int().min(0).max(10).default(3),
  /** OpenTelemetry traces (issue #22): exported over OTLP HTTP (JSON) only when an endpoint is set; none, nothing is recorded. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  /** `name=value` pairs, comma-separated (e.g. a backend's API key header). */
  OTEL_EXPORTER_OTLP_HEADERS: z
    .string()
    .regex(/^\s*[^=,\s]+\s*=[^,]*(,\s*[^=,\s]+\s*=[^,]*)*$/, 'must be name=value pairs, comma-separated')
    .optional(),
  OTEL_EXPORTER_OTLP_TIMEOUT: z.coerce.number().int().min(100).max(60_000).default(10_000),
  OTEL_SERVICE_NAME: z.string().min(1).max(100).optional(),
  OTEL_BSP_MAX_QUEUE_SIZE: z.coerce.number().int().min(1).max(100_000).default(2048),
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(10).max(60_000).default(5000),
  /**
   * false: a request's span starts a trace of its own, linked to the caller's `traceparent`, which it
   * does not continue. Unset: true in development, false in production (a client on the internet must
   * not join other traces or turn sampling off; set true behind a gateway you trust).
   */
  OTEL_CONTINUE_INCOMING_TRACES: bool.optional(),
  PLATFORM_DEV_DIR: z.string().min(1).default('.dev'),
  /** The built web console (src/console/build-console.ts); unset: the API builds it into PLATFORM_DEV_DIR/console at startup. */
  CONSOLE_ASSETS_DIR: z.string().min(1).optional(),
  SEARCH_BACKEND: z.enum(['memory', 'atlas']).default('memory'),
  ATLAS_SEARCH_INDEX: z.string().min(1).default('artifacts_text'),
  ATLAS_VECTOR_INDEX: z.string().min(1).default('artifacts_vector'),
  SEARCH_SYNC_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  SEARCH_ANN_THRESHOLD: z.coerce.number().int().min(100).default(5000),
  /** The semantic ranking's weight in RRF against the lexical one's 1; unset: the embedder's measured weight. */
  SEARCH_SEMANTIC_WEIGHT: z.coerce.number().min(0).max(10).optional(),
  EMBEDDINGS_PROVIDER: z.enum(['minilm', 'static', 'hashing', 'openai']).default('minilm'),
  EMBEDDINGS_MODEL_DIR: z.string().min(1).optional(),
  /** MiniLM: onnxruntime's intra-op threads (1 leaves a core to the API and the store; a machine that only indexes can use its cores). */
  EMBEDDINGS_THREADS: z.coerce.number().int().min(1).max(64).default(1),
  /** MiniLM: tokens per text (the model's 256; fewer is faster and truncates long texts; changing it re-embeds on the next write). */
  EMBEDDINGS_MAX_TOKENS: z.coerce.number().int().min(8).max(256).default(256),
  EMBEDDINGS_MODEL: z.string().min(1).default('text-embedding-3-small'),
  EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(8).max(4096).default(384),
  EMBEDDINGS_BASE_URL: z.url().optional(),
  EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  LLM_MODEL: z.string().min(1).optional(),
  LLM_TIMEOUT_SECONDS: z.coerce.number().min(1).max(600).default(60),
  LLM_CONTEXT_TOKENS: z.coerce.number().int().min(256).max(1_000_000).default(8000),
  INVOKE_PREVIEW_EXPIRY_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(90 * 86400)
    .default(7 * 86400),
  /** Bulk import (issue #33): the most bytes one import request may send (JSON, NDJSON or multipart files). */
  IMPORT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(64 * 1024 * 1024),
  /** The most items (documents or files) one import may hold. */
  IMPORT_MAX_ITEMS: z.coerce.number().int().min(1).max(1_000_000).default(50_000),
  /** The largest single file or item content an import takes, in bytes. */
  IMPORT_MAX_ITEM_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .default(32 * 1024 * 1024),
  /** Items one import activity writes together (one insert per collection per batch). */
  IMPORT_BATCH: z.coerce.number().int().min(1).max(5000).default(500),
  // --- Streams (issue #36): RTMP ingest on the worker's host ---
  /** Ports the worker's RTMP ingest listeners take, `from-to` (one per live session). */
  STREAM_PORTS: z
    .string()
    .regex(/^\d{1,5}-\d{1,5}$/, 'must be a port range such as 1935-1944')
    .refine((r) => {
      const [from, to] = r.split('-').map(Number) as [number, number];
      return from >= 1 && to <= 65535 && from <= to;
    }, 'must be a range of ports 1-65535, low to high')
    .default('1935-1944'),
  /** The address the ingest listeners bind on the worker's host (loopback by default: open it deliberately). */
  STREAM_BIND_ADDRESS: z.string().min(1).default('127.0.0.1'),
  /** The host name publishers use in the ingest URL (default: the bind address, `localhost` for a wildcard). */
  STREAM_PUBLIC_HOST: z.string().min(1).optional(),
  /** The longest a session may run, whatever its content asks. */
  STREAM_MAX_DURATION_SECONDS: z.coerce.number().int().min(10).max(86_400).default(21_600),
  /** The largest recorded file (segment, still) kept as an artifact; larger ones are counted and dropped. */
  STREAM_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(16 * 1024 * 1024),
  /** Addresses a pulled stream source may have besides public ones (CIDRs, comma-separated; loopback and private are refused otherwise). */
  STREAM_PULL_ALLOW: z.string().default(''),
  /** The ffmpeg and ffprobe executables (Debian's, installed by temporal-dev/install-media.sh). */
  STREAM_FFMPEG_PATH: z.string().min(1).default('ffmpeg'),
  STREAM_FFPROBE_PATH: z.string().min(1).default('ffprobe'),
  /** Live sessions at once, platform-wide, and per person who started them (each holds a worker activity slot). */
  STREAM_MAX_SESSIONS: z.coerce.number().int().min(1).max(1000).default(10),
  STREAM_MAX_SESSIONS_PER_PERSON: z.coerce.number().int().min(1).max(1000).default(3),
  INVOKE_MAX_ACTIONS: z.coerce.number().int().min(1).max(5000).default(500),
  OAUTH_CONSENT_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(86_400).default(600),
  OAUTH_REFRESHES_PER_RUN: z.coerce.number().int().min(1).max(10_000).default(100),
  SIGN_IN_DELAY_AFTER: z.coerce.number().int().min(1).max(1000).default(5),
  SIGN_IN_LOCK_AFTER: z.coerce.number().int().min(0).max(1000).default(10),
  SIGN_IN_LOCKOUT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(60),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(1200),
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /** Metrics (issue #22): the bearer token scrapers send to /metrics (unset: production refuses every scrape, development answers loopback only). */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** The worker's own /metrics listener (activity metrics), host:port; unset: none. */
  WORKER_METRICS_ADDRESS: z
    .string()
    .regex(/^[^\s]+:\d+$/, 'must be host:port')
    .optional(),
  /** The Temporal SDK's own Prometheus exporter in the worker (its runtime telemetry), host:port; unset: none. */
  TEMPORAL_METRICS_ADDRESS: z
    .string()
    .regex(/^[^\s]+:\d+$/, 'must be host:port')
    .optional(),
  // --- Graceful shutdown (issue #22) ---
  /** After SIGTERM, /readyz answers 503 while the API still accepts for this long (a load balancer's probe period). */
  SHUTDOWN_DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(120_000).default(0),
  /** From SIGTERM, how long in-flight requests may take to finish before the API exits anyway (non-zero). */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(1000).max(600_000).default(25_000),
  /** From SIGTERM, how long running activities may take before the worker cancels them (they may still heartbeat out). */
  WORKER_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(3_600_000).default(25_000),
  /** After that, how long cancelled activities get to stop before the worker exits anyway (non-zero). */
  WORKER_SHUTDOWN_FORCE_MS: z.coerce.number().int().min(1000).max(600_000).default(10_000),
});

export type Env = z.infer<typeof envSchema>;

const list = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

export interface Config extends Env {
  apiUri: string;
  /** STORE_URI, else MONGODB_URI. */
  storeUri: string;
  temporalAddress: string;
  isDev: boolean;
  /** Browser origins and Host names besides the API's own that may call /mcp. */
  mcpAllowedOrigins: string[];
  mcpAllowedHosts: string[];
  /**
   * MCP_OUTBOUND_LOOPBACK, else development with the API listening on loopback only: the outbound guard
   * lets loopback through. A development platform on HOST=0.0.0.0 answers other machines, which must not
   * reach this one's loopback services (Temporal, the store, metrics) through it.
   */
  outboundLoopback: boolean;
}

export class ConfigError extends Error {}

/** Parses the environment once. A bad value becomes one line naming the variable and the problem. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`invalid configuration: ${name}: ${issue.message}`);
  }
  const e = parsed.data;
  const isDev = e.PLATFORM_ENV === 'development';
  if (e.SIGN_IN_LOCK_AFTER > 0 && e.SIGN_IN_DELAY_AFTER > e.SIGN_IN_LOCK_AFTER) {
    throw new ConfigError('invalid configuration: SIGN_IN_DELAY_AFTER: must not exceed SIGN_IN_LOCK_AFTER');
  }
  if (!isDev) {
    if (!e.STORE_URI && !e.MONGODB_URI) throw new ConfigError('invalid configuration: STORE_URI: required when PLATFORM_ENV=production');
    for (const required of ['TEMPORAL_ADDRESS', 'PLATFORM_MASTER_KEY'] as const) {
      if (!e[required]) throw new ConfigError(`invalid configuration: ${required}: required when PLATFORM_ENV=production`);
    }
  }
  return {
    ...e,
    isDev,
    apiUri: (e.PLATFORM_API_URI ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    storeUri: e.STORE_URI ?? e.MONGODB_URI ?? 'mongodb://127.0.0.1:27017/',
    temporalAddress: e.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
    mcpAllowedOrigins: list(e.MCP_ALLOWED_ORIGINS),
    mcpAllowedHosts: list(e.MCP_ALLOWED_HOSTS).map((h) => h.toLowerCase()),
    outboundLoopback: e.MCP_OUTBOUND_LOOPBACK ?? (isDev && listensOnLoopbackOnly(e.HOST)),
  };
}

/** HOST names this machine only: `localhost`, `127.x.x.x` or `::1`. */
export function listensOnLoopbackOnly(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
