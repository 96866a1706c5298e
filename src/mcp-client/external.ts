import { createHash } from 'node:crypto';
import { specTypeSchemas, type StandardSchemaV1Sync } from '@modelcontextprotocol/client';
// The rest of the platform types results as these (SDK 1.x shapes); the SDK 2 client's results are the same JSON.
import type { CallToolResult, ReadResourceResult, Resource, Tool } from '@modelcontextprotocol/sdk/types.js';
import { observeOutbound } from '../observability/outbound.js';
import { hostOf, mcpServerContent, type McpServerContent } from '../artifacts/content-types/mcp-server.js';
import { isTypeDefinitionUri, typeDefinition, type TypeDefinition } from '../artifacts/content-types/type-definition.js';
import { baseType, hostType, mcpServerType } from '../artifacts/content-types/index.js';
import { catalogListing, type CallOp, type CatalogListing } from '../relay-protocol/wire.js';
import type { RelayedCalls } from '../relay/calls.js';
import type { Logger } from '../kernel/logging/logger.js';
import type { ArtifactDoc, ArtifactStore } from '../store/artifacts.js';
import type { CatalogDoc, McpCatalogStore } from '../store/mcp-catalog.js';
import type { SecretStore } from '../store/secrets.js';
import { ConnectionUnusable, type Projector } from '../connections/projection.js';
import { boundResources, type CallTarget } from '../connections/binding.js';
import { bearerChallenge } from '../connections/discovery.js';
import { genericMcpIcon, iconOf } from './icons.js';
import { forgetVerdict, openSession, type McpSession, type OutboundHttp, type ResolvedCredentials } from './session.js';
import { sessionKey, type SessionPool } from './session-pool.js';
import { boundResult, classify, redact } from './results.js';
import { CallFailed, unusable, type CallFailure } from './failure.js';
import { CatalogMismatch, type Launch, type StdioServers } from '../stdio-servers/index.js';

export interface CallOptions {
  /** Without an answer or a progress notification for this long, the call fails; by default the server's `timeout_seconds`, else MCP_CALL_TIMEOUT_SECONDS. */
  timeoutMs?: number;
  maxTotalMs: number;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  signal?: AbortSignal;
  /** The person the call is made for: an oauth2 server is called with their connection's token. */
  person?: string;
  /** The request's `params._meta` (a delegation token, SPEC §5.7): its values are scrubbed from the result and errors like secrets. */
  meta?: Record<string, string>;
}

/** The activity a relayed call belongs to (`<workflow id>/<run id>/<activity id>`), its attempt, and whether its cancellation was asked for. */
export interface RelayLineage {
  lineage: string;
  attempt: number;
  cancelRequested: () => boolean;
}

interface Deps {
  artifacts: ArtifactStore;
  secrets: SecretStore;
  projector: Projector;
  catalog: McpCatalogStore;
  pool: SessionPool;
  outbound: OutboundHttp;
  logger: Logger;
  resultMaxBytes: number;
  /** The operators' stdio catalog and the sandbox, or why stdio servers are off on this worker. */
  stdio: StdioServers;
  defaultTimeoutMs: number;
  /** Calls to servers on a host, through its desktop relay (issue #34). */
  relayed: RelayedCalls;
  /** The activity this call is made in, and its attempt (none outside one): a retried attempt adopts its earlier attempt's relay call. */
  activity: () => RelayLineage | undefined;
}

/** A registration as a call uses it: for a stdio server, the launch its catalog entry gives now; for one on a host, the host. */
interface LoadedServer {
  doc: ArtifactDoc;
  content: McpServerContent;
  launch?: Launch & { env: Record<string, string> };
  host?: { id: string; title: string };
}

/** Where an http registration's calls go, as the binding of an authorizer's tokens is checked against. */
function callTarget(content: McpServerContent): CallTarget {
  const { transport } = content;
  if (transport.type !== 'http') return null;
  return transport.url ? { endpoint: new URL(transport.url) } : { origin: new URL(transport.well_known!).origin };
}

/** What a relayed call takes of a call's options. */
type RelayOptions = Pick<CallOptions, 'timeoutMs' | 'maxTotalMs' | 'signal' | 'onProgress'>;

/** A loaded registration with its resolved credentials and the key of its pooled session. */
interface Prepared {
  server: LoadedServer;
  creds: ResolvedCredentials;
  key: string;
}

/**
 * The platform as an MCP client (SPEC §1 (2)): runs inside activities, where a server's credentials
 * are resolved for each call and dropped when it returns (DESIGN principle 3).
 */
export class ExternalServers {
  private readonly prepared = new Map<string, Prepared>();
  /** Servers registered without `auth` whose last 401 carried a Bearer challenge (MCP authorization). */
  private readonly challenged = new Set<string>();

  constructor(private readonly deps: Deps) {}

  /** The registration, read fresh: a call always uses the server as it is now. */
  async load(serverId: string): Promise<LoadedServer> {
    const doc = await this.deps.artifacts.get(serverId);
    if (!doc || baseType(doc.content_type) !== mcpServerType) throw unusable(`MCP server ${serverId} no longer exists.`);
    const parsed = mcpServerContent.safeParse(JSON.parse(doc.content));
    if (!parsed.success) throw unusable(`MCP server ${serverId} has an invalid registration: ${parsed.error.issues[0]!.message}.`);
    if (doc.archived_at) throw unusable(`MCP server ${serverId} is archived; unarchive it to call it.`);
    const { transport } = parsed.data;
    const hostId = hostOf(parsed.data);
    if (hostId !== undefined) return { doc, content: parsed.data, host: await this.host(serverId, hostId) };
    if (transport.type !== 'stdio') return { doc, content: parsed.data };
    // Matched again at call time: the deployment may have turned stdio off, or its operators changed the catalog, since the server was registered.
    const { stdio } = this.deps;
    if (stdio.off !== null) throw unusable(stdio.off);
    try {
      // A stored registration names its entry: launched as the entry is now (operators may have bumped its pinned version).
      const { catalog_entry, params, env } = transport;
      const { entry, args } = stdio.catalog.match(catalog_entry !== undefined ? { catalog_entry, params, env } : transport);
      return {
        doc,
        content: parsed.data,
        launch: { command: entry.command, args, network: entry.network, limits: entry.limits, env: entry.env },
      };
    } catch (err) {
      if (!(err instanceof CatalogMismatch)) throw err;
      throw unusable(
        `MCP server ${serverId} no longer matches this deployment's stdio catalog (transport.${err.field} ${err.message}); register it again naming a catalog entry.`,
      );
    }
  }

  /** The host a server runs on, as it is now: gone or archived, the server cannot be called. */
  private async host(serverId: string, hostId: string): Promise<{ id: string; title: string }> {
    const host = await this.deps.artifacts.get(hostId);
    if (!host || baseType(host.content_type) !== hostType)
      throw unusable(`MCP server ${serverId} runs on host ${hostId}, which no longer exists; point it at a host again.`);
    if (host.archived_at) throw unusable(`MCP server ${serverId} runs on host "${host.title}" (${hostId}), which is archived.`);
    return { id: hostId, title: host.title };
  }

  /** A call to a server on a host: made by its relay, answered through the store (src/relay/calls.ts). */
  private relay(
    server: LoadedServer,
    op: CallOp,
    params: Record<string, unknown>,
    options: RelayOptions,
  ): Promise<Record<string, unknown>> {
    const { doc, content, host } = server;
    const activity = this.deps.activity();
    if (!activity) throw unusable(`MCP server ${doc._id} runs on a host's relay, which only a workflow's activity can call.`);
    // One activity may make several calls: each is its own lineage, the same one on every attempt.
    const call = createHash('sha256')
      .update(JSON.stringify([doc._id, op, params]))
      .digest('base64url')
      .slice(0, 22);
    return this.deps.relayed.call({
      lineage: `${activity.lineage}/${call}`,
      attempt: activity.attempt,
      cancelRequested: activity.cancelRequested,
      hostId: host!.id,
      hostTitle: host!.title,
      serverId: doc._id,
      revision: doc.revision,
      secretsOwner: doc.secrets_owner ?? doc.provenance.created_by,
      op,
      params,
      timeoutMs: options.timeoutMs ?? (content.timeout_seconds ? content.timeout_seconds * 1000 : this.deps.defaultTimeoutMs),
      maxTotalMs: options.maxTotalMs,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  }

  /** Opens the secrets the registration references; they belong to whoever last wrote its content (checked then). */
  private async resolve(doc: ArtifactDoc, content: McpServerContent, person: string | undefined): Promise<ResolvedCredentials> {
    const owner = doc.secrets_owner ?? doc.provenance.created_by;
    const creds: ResolvedCredentials = { env: {}, headers: {}, secrets: [] };
    const reveal = async (id: string, field: string) => {
      const value = await this.deps.secrets.reveal(owner, id);
      if (value === null)
        throw unusable(`The secret referenced by ${field} no longer exists; store it again with POST /secrets and update the server.`);
      creds.secrets.push(value);
      return value;
    };
    if (content.transport.type === 'stdio') {
      for (const [name, value] of Object.entries(content.transport.env)) {
        creds.env[name] = typeof value === 'string' ? value : await reveal(value.secret_id, `transport.env.${name}`);
      }
    }
    const { auth } = content;
    if (auth?.type === 'static') {
      creds.headers[auth.header] = auth.value;
      creds.secrets.push(auth.value);
    } else if (auth?.type === 'api_key') {
      creds.headers[auth.header] = await reveal(auth.secret_id, 'auth.secret_id');
    } else if (auth?.type === 'oauth2') {
      // The projection of the person's connection (SPEC §2.5), made here, inside the activity, for this call only.
      if (!person)
        throw unusable(`MCP server ${doc._id} is called with each person's own OAuth connection, and this call is made for no one.`);
      try {
        // The authorizer's tokens go only to the resource it was bound to (review finding 4 of #35), and
        // only while it is the authorizer the person consented to (connections/pin.ts).
        const authorizer = await this.deps.artifacts.get(auth.authorizer_id);
        const { headers } = await this.deps.projector.forPerson(person, auth.authorizer_id, { target: callTarget(content), authorizer });
        Object.assign(creds.headers, headers);
        // A server registered by its discovery document: its endpoint is checked against the resources when the session reads it.
        const resources = boundResources(authorizer);
        if (resources.length) creds.audience = resources;
        creds.secrets.push(...Object.values(headers), ...Object.values(headers).map((v) => v.replace(/^\S+\s+/, '')));
      } catch (err) {
        if (err instanceof ConnectionUnusable)
          throw unusable(err.code === 'connection-resource-mismatch' ? `MCP server ${doc._id}: ${err.message}` : err.message);
        throw err;
      }
    }
    return creds;
  }

  /**
   * The registration and its credentials, read fresh unless the caller names the revision it was
   * authorised against and a live session for that revision is pooled: a warm call reads nothing.
   * (A revision fixes the content, and the secrets it references cannot change value, only go away;
   * a deleted secret stops being used once the session is closed.)
   */
  private async prepare(serverId: string, revision: number | undefined, person: string | undefined): Promise<Prepared> {
    // Credentials are kept only as long as the session that uses them.
    for (const [id, p] of this.prepared) if (!this.deps.pool.has(p.key)) this.prepared.delete(id);
    const warm = this.prepared.get(serverId);
    if (revision !== undefined && warm?.server.doc.revision === revision && this.deps.pool.has(warm.key)) return warm;
    const server = await this.load(serverId);
    const creds = await this.resolve(server.doc, server.content, person);
    // An oauth2 server's connections are per person and per token (the key covers the header): its credentials are projected afresh for every call, never kept.
    const prepared = { server, creds, key: sessionKey(serverId, { content: server.content, launch: server.launch, creds }) };
    if (server.content.auth?.type !== 'oauth2') this.prepared.set(serverId, prepared);
    return prepared;
  }

  /**
   * Runs `fn` on a pooled session. A reused HTTP session that the server no longer knows (404
   * after a server restart) is dropped and the call made once more on a fresh one.
   */
  private async withSession<T>(
    serverId: string,
    fn: (session: McpSession, server: LoadedServer) => Promise<T>,
    revision?: number,
    person?: string,
    callSecrets: string[] = [],
  ): Promise<T> {
    const { server, creds, key } = await this.prepare(serverId, revision, person);
    const secrets = [...creds.secrets, ...callSecrets];
    const explain = (failure: CallFailure) => this.explained(serverId, server.content, failure);
    const open = async () => {
      const session = await openSession(
        server.content,
        creds,
        {
          outbound: this.watched(serverId, server.content),
          sandboxed: server.launch && this.deps.stdio.sandbox?.command(server.launch, { ...server.launch.env, ...creds.env }),
          verdictKey: key,
        },
        () => this.toolsChanged(serverId),
      );
      // Which revision each server speaks is what an operator needs when one misbehaves after an upgrade.
      this.deps.logger.info(
        { server_id: serverId, protocol_version: session.protocolVersion, transport: session.transport, negotiation: session.negotiation },
        'MCP session opened',
      );
      return session;
    };
    const attempt = (retry: boolean): Promise<T> =>
      this.deps.pool
        .use(key, open, async (session, reused, drop) => {
          try {
            return await fn(session, server);
          } catch (err) {
            const failure = classify(err, session.stderrTail());
            // A server that changed under the same command line answers a cached verdict's era with an error.
            if (failure.retryable || failure.kind === 'protocol') forgetVerdict(key);
            if (failure.retryable || failure.status === 404) await drop();
            // A reused session the server has forgotten (a restart: 404 for the session, or closed): once more on a fresh one.
            if (retry && reused && (failure.status === 404 || /closed|ECONNRESET|ECONNREFUSED/i.test(failure.message)))
              return attempt(false);
            throw new CallFailed(redact(explain(failure), secrets));
          }
        })
        .catch((err) => {
          if (err instanceof CallFailed) throw err;
          throw new CallFailed(redact(explain(classify(err)), secrets)); // opening the session failed
        });
    return redact(await attempt(true), secrets);
  }

  /**
   * The outbound client a session uses: for an http server registered without `auth`, one that notes
   * whether its 401s carry a Bearer challenge (the SDK's error does not keep the header).
   */
  private watched(serverId: string, content: McpServerContent): OutboundHttp {
    const { outbound } = this.deps;
    if (content.auth || content.transport.type !== 'http') return outbound;
    return {
      fetchJson: outbound.fetchJson.bind(outbound),
      fetch: async (...args: Parameters<OutboundHttp['fetch']>) => {
        const res = await outbound.fetch(...args);
        if (res.status === 401) {
          if (bearerChallenge(res.headers.get('www-authenticate'))) this.challenged.add(serverId);
          else this.challenged.delete(serverId);
        }
        return res;
      },
    };
  }

  /** A 401 with a Bearer challenge from a server without `auth`: the person is told how to connect, not shown the raw 401. */
  private explained(serverId: string, content: McpServerContent, failure: CallFailure): CallFailure {
    if (failure.status !== 401 || content.auth || !this.challenged.has(serverId)) return failure;
    return {
      ...failure,
      message: `MCP server ${serverId} asks for authorization: each person connects with POST /artifacts/${serverId}/op/connect.`,
    };
  }

  /** `notifications/tools/list_changed`: the catalog is listed anew on the session that said so. */
  private toolsChanged(serverId: string): void {
    this.refreshCatalog(serverId).then(
      (doc) => this.deps.logger.info({ server_id: serverId, tools: doc.tools.length }, 'MCP server tools changed: catalog refreshed'),
      (err: Error) => this.deps.logger.warn({ server_id: serverId, err: err.message }, 'MCP server tools changed: catalog not refreshed'),
    );
  }

  async callTool(
    serverId: string,
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
    revision?: number,
  ): Promise<CallToolResult> {
    const server = await this.load(serverId);
    if (server.host) {
      // No `_meta`: a delegation token is minted for one call and never stored, and a relayed call is a
      // stored record (docs/decisions.md, "Desktop host relay"). A server on a host gets none.
      const params = { name, arguments: args };
      const result = await observeOutbound({ kind: 'mcp', target: serverId, operation: 'tools/call', tool: name }, () =>
        this.relay(server, 'tools/call', params, options),
      );
      return boundResult(relayed<CallToolResult>(specTypeSchemas.CallToolResult, result, server), this.deps.resultMaxBytes);
    }
    const result = await observeOutbound({ kind: 'mcp', target: serverId, operation: 'tools/call', tool: name }, () =>
      this.withSession(
        serverId,
        ({ client }, { content }) =>
          client.callTool(
            { name, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) },
            {
              timeout: options.timeoutMs ?? (content.timeout_seconds ? content.timeout_seconds * 1000 : this.deps.defaultTimeoutMs),
              resetTimeoutOnProgress: true,
              maxTotalTimeout: options.maxTotalMs,
              ...(options.onProgress ? { onprogress: options.onProgress } : {}),
              ...(options.signal ? { signal: options.signal } : {}),
            },
          ),
        revision,
        options.person,
        Object.values(options.meta ?? {}),
      ),
    );
    return boundResult(result as CallToolResult, this.deps.resultMaxBytes);
  }

  /** Reads a resource; one larger than MCP_RESULT_MAX_BYTES is refused rather than cut (a cut file is a wrong file). */
  async readResource(serverId: string, uri: string, timeoutMs: number, person?: string): Promise<ReadResourceResult> {
    const server = await this.load(serverId);
    const read = await observeOutbound({ kind: 'mcp', target: serverId, operation: 'resources/read' }, () =>
      server.host
        ? this.relay(server, 'resources/read', { uri }, { timeoutMs, maxTotalMs: timeoutMs }).then((r) =>
            relayed<ReadResourceResult>(specTypeSchemas.ReadResourceResult, r, server),
          )
        : this.withSession(
            serverId,
            async ({ client }) => (await client.readResource({ uri }, { timeout: timeoutMs })) as ReadResourceResult,
            undefined,
            person,
          ),
    );
    const size = Buffer.byteLength(JSON.stringify(read));
    if (size > this.deps.resultMaxBytes)
      throw new CallFailed({
        retryable: false,
        kind: 'protocol',
        message: `The resource ${uri} is ${size} bytes, more than this platform takes (MCP_RESULT_MAX_BYTES = ${this.deps.resultMaxBytes}).`,
      });
    return read;
  }

  /** Lists a server's tools, resources and shipped content types into the catalog, and records its health. */
  async refreshCatalog(serverId: string, person?: string): Promise<CatalogDoc> {
    const started = Date.now();
    let server: LoadedServer | undefined;
    const put = async (listing: CatalogListing, doc: ArtifactDoc, session?: McpSession) => {
      const entry = this.catalogDoc(listing, doc, started, session);
      await this.deps.catalog.put(entry);
      return entry;
    };
    try {
      server = await this.load(serverId);
      const loaded = server;
      return await observeOutbound({ kind: 'mcp', target: serverId, operation: 'catalog' }, () =>
        loaded.host
          ? this.relay(loaded, 'catalog', {}, { maxTotalMs: 120_000 }).then((answer) => put(catalogListing.parse(answer), loaded.doc))
          : this.withSession(serverId, async (session, { doc }) => put(await listSession(session), doc, session), undefined, person),
      );
    } catch (err) {
      const failure = err instanceof CallFailed ? err.failure : classify(err);
      const doc = server?.doc ?? (await this.deps.artifacts.get(serverId));
      const error = failure.message + (failure.body ? ` ${failure.body}` : '');
      if (doc)
        await this.deps.catalog.markUnhealthy(
          serverId,
          doc.collection_id,
          doc.revision,
          { status: 'error', checked_at: new Date(), error },
          genericMcpIcon,
        );
      throw err;
    }
  }

  /** A listing as the catalog keeps it, with the icons resolved and the shipped content types checked. */
  private catalogDoc(listing: CatalogListing, doc: ArtifactDoc, started: number, session?: McpSession): CatalogDoc {
    const discoveryIcon = session?.discoveryIcon;
    // The revision the listing session negotiated, kept with the health it found (a relay does not say).
    const health: CatalogDoc['health'] = {
      status: 'ok',
      checked_at: new Date(),
      latency_ms: Date.now() - started,
      ...(session ? { protocol_version: session.protocolVersion } : {}),
    };
    const version = listing.server_info;
    const serverIcon = iconOf(version as Parameters<typeof iconOf>[0], discoveryIcon);
    const tools = listing.tools as unknown as Tool[];
    const resources = listing.resources as unknown as Resource[];
    const contentTypes: TypeDefinition[] = [];
    for (const { uri, text } of listing.type_definitions) {
      const parsed = typeDefinition.safeParse(safeJson(text));
      if (parsed.success) contentTypes.push(parsed.data);
      else this.deps.logger.warn({ server_id: doc._id, uri, reason: parsed.error.issues[0]!.message }, 'ignoring an invalid type.json');
    }
    return {
      _id: doc._id,
      workspace_id: doc.collection_id,
      revision: doc.revision,
      ...(version
        ? { server_info: { name: version.name, version: version.version, ...(version.title ? { title: version.title } : {}) } }
        : {}),
      icon: serverIcon,
      ...(listing.instructions ? { instructions: listing.instructions } : {}),
      tools: tools.map((t) => ({
        name: t.name,
        ...(t.title ? { title: t.title } : {}),
        ...(t.description ? { description: t.description } : {}),
        input_schema: t.inputSchema as Record<string, unknown>,
        ...(t.outputSchema ? { output_schema: t.outputSchema as Record<string, unknown> } : {}),
        ...(t.annotations ? { annotations: t.annotations as Record<string, unknown> } : {}),
        icon: iconOf(t, serverIcon),
      })),
      resources: resources.map((r) => ({
        uri: r.uri,
        name: r.name,
        ...(r.title ? { title: r.title } : {}),
        ...(r.description ? { description: r.description } : {}),
        ...(r.mimeType ? { mime_type: r.mimeType } : {}),
        icon: iconOf(r, serverIcon),
      })),
      content_types: contentTypes,
      health,
      refreshed_at: new Date(),
    };
  }
}

/** Each request of a listing has this deadline (the SDK's default, said here). */
const listing = { timeout: 60_000 };

/** What a live session lists: the same shape a relay answers for its `catalog` op. */
async function listSession({ client }: McpSession): Promise<CatalogListing> {
  const version = client.getServerVersion();
  const caps = client.getServerCapabilities() ?? {};
  const tools = caps.tools
    ? await collect((cursor) =>
        client.listTools(cursor ? { cursor } : undefined, listing).then((r) => ({ items: r.tools, next: r.nextCursor })),
      )
    : [];
  const resources = caps.resources
    ? await collect((cursor) =>
        client.listResources(cursor ? { cursor } : undefined, listing).then((r) => ({ items: r.resources, next: r.nextCursor })),
      )
    : [];
  const typeDefinitions: CatalogListing['type_definitions'] = [];
  for (const r of resources.filter((r) => isTypeDefinitionUri(r.uri)).slice(0, 100)) {
    const read = await client.readResource({ uri: r.uri }, listing);
    typeDefinitions.push({ uri: r.uri, text: read.contents.map((c) => ('text' in c ? c.text : '')).join('') });
  }
  return {
    ...(version ? { server_info: version } : {}),
    ...(client.getInstructions() ? { instructions: client.getInstructions()! } : {}),
    tools: tools as unknown as Record<string, unknown>[],
    resources: resources as unknown as Record<string, unknown>[],
    type_definitions: typeDefinitions,
  };
}

/** A relay's answer checked as the MCP result it must be: a relay is a program on someone's machine, not trusted to be right. */
function relayed<T>(schema: StandardSchemaV1Sync<unknown, unknown>, answer: unknown, server: LoadedServer): T {
  const checked = schema['~standard'].validate(answer);
  if (checked.issues !== undefined)
    throw new CallFailed({
      retryable: false,
      kind: 'protocol',
      message: `The relay on host "${server.host!.title}" answered something that is not an MCP result.`,
    });
  return checked.value as T;
}

/** Pages through a list (bounded: a catalog is a summary, not a mirror). */
async function collect<T>(page: (cursor?: string) => Promise<{ items: T[]; next?: string }>, bound = 1000): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const r = await page(cursor);
    items.push(...r.items);
    cursor = r.next;
  } while (cursor && items.length < bound);
  return items.slice(0, bound);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
