import { z } from 'zod';

/**
 * The desktop host relay's protocol (issue #34, docs/decisions.md "Desktop host relay"): what a relay
 * on a person's machine and the platform's API say to each other. The relay only ever makes outbound
 * HTTPS requests, each with a bearer token from `POST /auth/token` (client_credentials of a server
 * credential bound to a host artifact):
 *
 * - `POST /relay/hello`: a relay process starts a session; a new session ends every call the host's
 *   previous session had taken and not answered (the relay restarted: they are failed, never re-run);
 * - `POST /relay/poll`: the relay's heartbeat, and a long poll for calls (answers at once when there
 *   are some, else after `poll_wait_ms`); it reports the calls still running, with their progress;
 * - `POST /relay/calls/{id}/result`: a call's one answer. The first answer recorded for a call wins
 *   (a unique insert), so a late answer after the call was failed or cancelled is refused with 409.
 *
 * Both sides import this file, so the schemas are the contract.
 */

export const relayVersion = '1';

/**
 * Env keys a server on a host may not set: they would change WHAT runs rather than configure it (the
 * runner's search path, preloaded code, npm's registry, Python's startup file), behind the local
 * policy's back. The platform refuses them at registration; the relay refuses a call that carries one.
 */
export const steeringEnv =
  /^(PATH|HOME|LD_.*|DYLD_.*|NODE_OPTIONS|NODE_PATH|NPM_CONFIG_.*|PYTHON.*|UV_.*|PIP_.*|DENO_.*|BASH_ENV|ENV|TMPDIR)$/i;

/** What the relay may do, reported so the person's host page shows it (the relay enforces it, not the platform). */
export const policySummary = z.strictObject({
  commands: z.array(z.string().max(32)).max(16),
  packages: z.array(z.string().max(300)).max(500),
  repositories: z.array(z.string().max(300)).max(500),
  folders: z.array(z.strictObject({ path: z.string().max(4096), write: z.boolean() })).max(100),
  network: z.boolean(),
});
export type PolicySummary = z.infer<typeof policySummary>;

export const sessionId = z.uuid();

export const helloRequest = z.strictObject({
  session: sessionId,
  /** The relay program's version (package version). */
  version: z.string().min(1).max(64),
  os: z.string().min(1).max(64),
  arch: z.string().min(1).max(64),
  /** What runs each server: `bwrap` (Linux), `sandbox-exec` (macOS), `none` (the person turned it off). */
  sandbox: z.enum(['bwrap', 'sandbox-exec', 'none']),
  policy: policySummary,
});
export type HelloRequest = z.infer<typeof helloRequest>;

export const helloResponse = z.strictObject({
  host_id: z.string(),
  host_title: z.string(),
  /** How long a poll waits for calls before answering empty. */
  poll_wait_ms: z.int(),
  /** Calls the host's earlier sessions had taken and never answered: failed as lost. */
  lost_calls: z.int(),
});
export type HelloResponse = z.infer<typeof helloResponse>;

export const runningCall = z.strictObject({
  id: z.string().min(1).max(600),
  progress: z.number().optional(),
  total: z.number().optional(),
});

/** A server the relay keeps running (a pooled stdio session), for relay_status. */
export const runningServer = z.strictObject({
  server_id: z.string().max(200),
  revision: z.int(),
  label: z.string().max(600),
  started_at: z.iso.datetime(),
  /** A repository server: the commit it runs (the ref resolved once, then pinned in the relay's records). */
  commit: z.string().max(64).optional(),
});
export type RunningServer = z.infer<typeof runningServer>;

export const relayError = z.strictObject({
  at: z.iso.datetime(),
  message: z.string().max(2000),
  call_id: z.string().max(600).optional(),
  server_id: z.string().max(200).optional(),
});
export type RelayError = z.infer<typeof relayError>;

export const pollRequest = z.strictObject({
  session: sessionId,
  running: z.array(runningCall).max(256),
  servers: z.array(runningServer).max(256),
  /** The relay's most recent errors (refusals by its policy, servers that would not start), newest last. */
  errors: z.array(relayError).max(20),
});
export type PollRequest = z.infer<typeof pollRequest>;

/** How the relay runs a server: a command of SPEC §2.3's list, or a repository it clones, installs and runs. */
export const relayTransport = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('stdio'),
    command: z.string(),
    args: z.array(z.string()),
  }),
  z.strictObject({
    type: z.literal('repository'),
    owner_repo: z.string(),
    ref: z.string(),
    args: z.array(z.string()),
  }),
]);
export type RelayTransport = z.infer<typeof relayTransport>;

export const callOps = ['tools/call', 'resources/read', 'catalog'] as const;
export type CallOp = (typeof callOps)[number];

/** One call delivered to the relay. `env` holds the server's secrets, resolved for this call alone: never log it. */
export const relayCall = z.strictObject({
  id: z.string(),
  op: z.enum(callOps),
  server: z.strictObject({
    id: z.string(),
    revision: z.int(),
    title: z.string(),
    transport: relayTransport,
    env: z.record(z.string(), z.string()),
  }),
  /** `tools/call`: `{name, arguments, _meta?}`; `resources/read`: `{uri}`; `catalog`: `{}`. */
  params: z.record(z.string(), z.unknown()),
  /** Without an answer or a progress notification for this long, the relay fails the call (`timeout`). */
  timeout_ms: z.int(),
  /** The call's end, whatever its progress. */
  deadline_at: z.iso.datetime(),
});
export type RelayCall = z.infer<typeof relayCall>;

export const pollResponse = z.strictObject({
  calls: z.array(relayCall),
  /** Running calls whose answer is no longer wanted (cancelled, timed out, or failed as lost): stop them. */
  cancel: z.array(z.string()),
});
export type PollResponse = z.infer<typeof pollResponse>;

/** The `catalog` op's answer: what the platform lists of a server (the relay opens a session and lists it). */
export const catalogListing = z.strictObject({
  /** The server's `serverInfo` as it sent it (icons included). */
  server_info: z.looseObject({ name: z.string(), version: z.string(), title: z.string().optional() }).optional(),
  instructions: z.string().optional(),
  tools: z.array(z.record(z.string(), z.unknown())).max(1000),
  resources: z.array(z.record(z.string(), z.unknown())).max(1000),
  /** The text of each `type.json` resource the server lists (shipped content types). */
  type_definitions: z.array(z.strictObject({ uri: z.string(), text: z.string() })).max(100),
});
export type CatalogListing = z.infer<typeof catalogListing>;

/** Why the relay could not answer with a result. `refused`: its local policy said no. */
export const failureKinds = ['refused', 'start', 'protocol', 'timeout', 'cancelled', 'install'] as const;

export const resultRequest = z.discriminatedUnion('outcome', [
  z.strictObject({
    session: sessionId,
    outcome: z.literal('result'),
    /** A CallToolResult, a ReadResourceResult, or a CatalogListing, by the call's op. */
    result: z.record(z.string(), z.unknown()),
  }),
  z.strictObject({
    session: sessionId,
    outcome: z.literal('failure'),
    failure: z.strictObject({
      kind: z.enum(failureKinds),
      message: z.string().max(8000),
      /** Worth another attempt by the platform (a server that could not start for a passing reason). */
      retryable: z.boolean(),
    }),
  }),
]);
export type ResultRequest = z.infer<typeof resultRequest>;
