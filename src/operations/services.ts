import type { Client, Connection } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { StoreClient } from '../store/mongo.js';
import type { SigningKeys } from '../identity/signing-keys.js';
import type { TokenService } from '../identity/tokens.js';
import type { Config } from '../kernel/config/env.js';
import type { EventWorkflows } from '../workflow-clients/events.js';
import type { Logger } from '../kernel/logging/logger.js';
import type { ArtifactStore } from '../store/artifacts.js';
import type { ContainerStore } from '../store/containers.js';
import type { EventStore } from '../store/events.js';
import type { UserStore } from '../store/users.js';
import type { ApiKeyStore } from '../store/api-keys.js';
import type { AuditStore } from '../store/audit.js';
import type { ConsentStore } from '../store/consents.js';
import type { OAuthStore } from '../store/oauth.js';
import type { AuthorizationServer } from '../identity/oauth/authorization-server.js';
import type { BrowserSessions } from '../identity/oauth/browser-session.js';
import type { ExternalAccounts, ExternalIdentityProviders } from '../identity/external-idp/index.js';
import type { SecretStore } from '../store/secrets.js';
import type { ServerCredentialStore } from '../store/server-credentials.js';
import type { SearchService } from '../search/service.js';
import type { CommitWorkflows } from '../workflow-clients/commit.js';
import type { CommitStore } from '../store/commits.js';
import type { ImportStore } from '../store/imports.js';
import type { ImportWorkflows } from '../workflow-clients/imports.js';
import type { StreamWorkflows } from '../workflow-clients/streams.js';
import type { StreamSessionStore } from '../store/stream-sessions.js';
import type { VersionStore } from '../store/versions.js';
import type { McpCatalogStore } from '../store/mcp-catalog.js';
import type { ToolCallWorkflows } from '../workflow-clients/tool-call.js';
import type { InvocationWorkflows } from '../workflow-clients/invocation.js';
import type { Outbound } from '../net/outbound.js';
import type { ConnectionStore } from '../store/connections.js';
import type { Projector } from '../connections/projection.js';
import type { SignInThrottle } from '../identity/sign-in-throttle.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../identity/principal.js';
import type { ConnectionWorkflows } from '../workflow-clients/connection.js';
import type { RateLimits } from '../rate-limits/rate-limits.js';
import type { SubscriptionStore } from '../store/subscriptions.js';
import type { SubscriptionWorkflows } from '../workflow-clients/subscriptions.js';
import type { RelayStore } from '../store/relay.js';
import type { McpTaskStore } from '../store/mcp-tasks.js';
import type { ChatWorkflows } from '../workflow-clients/chats.js';
import type { ChatAnswerStore } from '../store/chat-answers.js';

/** Everything a request handler may use, built once per process by createServices. */
export interface Services {
  config: Config;
  logger: Logger;
  /** The store's client (MongoDB, or the embedded store on PostgreSQL). */
  store: StoreClient;
  db: Db;
  temporal: Client;
  /** A retry-free connection used only to probe readiness. */
  temporalProbe: Connection;
  signingKeys: SigningKeys;
  tokens: TokenService;
  users: UserStore;
  containers: ContainerStore;
  artifacts: ArtifactStore;
  events: EventStore;
  eventWorkflows: EventWorkflows;
  /** Webhook subscriptions to a workspace's events, and their deliveries. */
  subscriptions: SubscriptionStore;
  /** Each subscription's delivery workflow: poked by new events, stopped, resumed. */
  subscriptionWorkflows: SubscriptionWorkflows;
  serverCredentials: ServerCredentialStore;
  apiKeys: ApiKeyStore;
  consents: ConsentStore;
  /** The authorization server's clients, codes, refresh tokens and revocations. */
  oauth: OAuthStore;
  /** The platform as an OAuth 2.1 authorization server for its API and /mcp. */
  authorizationServer: AuthorizationServer;
  /** Sign-in and consent pages: the person's session cookie and the pending authorization request. */
  browserSessions: BrowserSessions;
  /** People signing in with an external OpenID Connect provider, and the accounts behind them. */
  externalSignIn: { providers: ExternalIdentityProviders; accounts: ExternalAccounts };
  secrets: SecretStore;
  audit: AuditStore;
  search: SearchService;
  versions: VersionStore;
  commits: CommitStore;
  commitWorkflows: CommitWorkflows;
  /** Bulk imports (issue #33): their records, staged items and outcomes, and their workflows. */
  imports: ImportStore;
  relay: RelayStore;
  mcpTasks: McpTaskStore;
  importWorkflows: ImportWorkflows;
  /** Streams' live sessions (issue #36): their records, and their workflows. */
  streamSessions: StreamSessionStore;
  streamWorkflows: StreamWorkflows;
  /** External MCP runs (tool calls, resource reads, catalog refreshes) as workflows. */
  toolCallWorkflows: ToolCallWorkflows;
  /** Agent and LLM invocations as workflows. */
  invocationWorkflows: InvocationWorkflows;
  /** Chat turns as workflows (issue #36), and their answers while the model writes them. */
  chatWorkflows: ChatWorkflows;
  chatAnswers: ChatAnswerStore;
  mcpCatalog: McpCatalogStore;
  /** The guarded outbound client: registrations are checked with it before anything calls out. */
  outbound: Outbound;
  /** OAuth connections (tokens sealed) and their projections (SPEC §2.5). */
  connections: ConnectionStore;
  projector: Projector;
  /** The OAuth connection workflows: consent attempts, callbacks, deletes, refreshes. */
  connectionWorkflows: ConnectionWorkflows;
  /** Per-account sign-in throttling and lockout, counted in MongoDB across replicas. */
  signIns: SignInThrottle;
  /** This replica's request rate limits (per principal, per client IP on credential exchanges). */
  rateLimits: RateLimits;
  /** The platform's own persona servers, implemented by the MCP server (wired in by the API process). */
  builtinServers: BuiltinServers;
}

/**
 * What an operation needs of its caller: the services and the request it belongs to. A REST route's
 * Koa context is one; the MCP endpoint builds one per request. The principal is absent only before
 * authentication (public routes): an operation for a caller takes an OperationContext.
 */
export interface RequestContext {
  services: Services;
  state: {
    principal?: Principal;
    requestId: string;
    channel?: 'api' | 'mcp';
    /** The API's base URL as this request reached it (api/public-url.ts): where to send a person back to. */
    publicBase?: string;
  };
}

/**
 * A request whose caller is authenticated: `state.principal` is who asks. Every operation done for
 * someone takes one; a non-public route's AuthedContext and an MCP tool call's context are one.
 */
export interface OperationContext extends RequestContext {
  state: RequestContext['state'] & { principal: Principal };
}

/**
 * What the operations need of the built-in servers. The MCP server implements it
 * (`mcp-server/builtin.ts`) and the API's composition root hands it in through the services, so
 * the operations never import the MCP server that imports them.
 */
export interface BuiltinServers {
  /** The persona as an artifact, for GET /artifacts/{id}. */
  artifact(): Record<string, unknown> & { id: string };
  /** The persona's catalog entry, as the caller's scopes let them see it. */
  catalogEntry(ctx: OperationContext): Record<string, unknown> & { id: string };
  /** Calls one of the persona's tools with the caller's own principal. */
  call(ctx: OperationContext, name: string, args: Record<string, unknown>): Promise<CallToolResult>;
}
