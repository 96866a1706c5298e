import { SigningKeys } from '../identity/signing-keys.js';
import { TokenService } from '../identity/tokens.js';
import { ensureAdmin, type AdminBootstrap } from './bootstrap/admin.js';
import { loadKeyRing } from './bootstrap/master-key.js';
import type { Config } from '../kernel/config/env.js';
import { EventWorkflows } from '../workflow-clients/events.js';
import { ImportWorkflows } from '../workflow-clients/imports.js';
import { ImportStore } from '../store/imports.js';
import { StreamSessionStore } from '../store/stream-sessions.js';
import { StreamWorkflows } from '../workflow-clients/streams.js';
import type { Logger } from '../kernel/logging/logger.js';
import type { Services } from '../operations/services.js';
import { ContainerStore } from '../store/containers.js';
import { EventStore } from '../store/events.js';
import { createStoreClient, ensureIndexes, openDatabase } from '../store/mongo.js';
import { UserStore } from '../store/users.js';
import { ApiKeyStore } from '../store/api-keys.js';
import { AuditStore } from '../store/audit.js';
import { ConsentStore } from '../store/consents.js';
import { OAuthStore } from '../store/oauth.js';
import { AuthorizationServer } from '../identity/oauth/authorization-server.js';
import { MetadataDocumentClients } from '../identity/oauth/metadata-documents.js';
import { BrowserSessions } from '../identity/oauth/browser-session.js';
import { ExternalAccounts, ExternalIdentityProviders, parseIdentityProviders } from '../identity/external-idp/index.js';
import { ExternalIdentityStore } from '../store/external-identities.js';
import { SecretStore } from '../store/secrets.js';
import { ServerCredentialStore } from '../store/server-credentials.js';
import { createTemporalClient, createTemporalProbe } from '../temporal/client.js';
import { createEmbedder } from '../search/embedder.js';
import { SearchService } from '../search/service.js';
import { ArtifactStore } from '../store/artifacts.js';
import { SearchChangeStore } from '../store/search-changes.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import { IndexingWorkflows } from '../workflow-clients/indexing.js';
import { CommitWorkflows } from '../workflow-clients/commit.js';
import { CommitStore } from '../store/commits.js';
import { VersionStore } from '../store/versions.js';
import { McpCatalogStore } from '../store/mcp-catalog.js';
import { InvocationWorkflows } from '../workflow-clients/invocation.js';
import { ToolCallWorkflows } from '../workflow-clients/tool-call.js';
import { createOutbound, parseAllowList, type Outbound } from '../net/outbound.js';
import { outboundAllowList } from '../net/allow-list.js';
import type { Db } from 'mongodb';
import { ConnectionStore } from '../store/connections.js';
import { stdioServers } from '../stdio-servers/index.js';
import { Projector } from '../connections/projection.js';
import { ConnectionWorkflows } from '../workflow-clients/connection.js';
import { SignInThrottle } from '../identity/sign-in-throttle.js';
import { SignInEventStore } from '../store/sign-in-events.js';
import { builtinServers } from '../mcp-server/builtin.js';
import { createRateLimits } from '../rate-limits/rate-limits.js';
import { SubscriptionStore } from '../store/subscriptions.js';
import { SubscriptionWorkflows } from '../workflow-clients/subscriptions.js';
import { RelayStore } from '../store/relay.js';
import { McpTaskStore } from '../store/mcp-tasks.js';
import { ChatWorkflows } from '../workflow-clients/chats.js';
import { ChatAnswerStore } from '../store/chat-answers.js';

/** Logs a storage call that took more than half its deadline: how close the load comes to 503s. */
export function slowStorageLog(logger: Logger, deadlineMs: number): (what: string, ms: number) => void {
  return (call, ms) => logger.warn({ call, ms, deadline_ms: deadlineMs }, 'slow storage call');
}

/** Sign-in with the administrator's OpenID Connect providers (IDENTITY_PROVIDERS); none by default. */
function externalSignIn(config: Config, db: Db, outbound: Outbound, logger: Logger): Services['externalSignIn'] {
  const providers = config.IDENTITY_PROVIDERS ? parseIdentityProviders(config.IDENTITY_PROVIDERS, 'IDENTITY_PROVIDERS') : [];
  return {
    providers: new ExternalIdentityProviders(providers, outbound, logger),
    accounts: new ExternalAccounts(new ExternalIdentityStore(db), new UserStore(db), providers),
  };
}

/** Builds the API's services: connects (lazily) to MongoDB and Temporal. Nothing is written yet. */
export function createServices(config: Config, logger: Logger): Services {
  const store = createStoreClient(config.storeUri, config.STORAGE_TIMEOUT_MS, config.STORE_POOL_SIZE);
  const db = openDatabase(store, config.MONGODB_DB, config.STORAGE_TIMEOUT_MS, slowStorageLog(logger, config.STORAGE_TIMEOUT_MS));
  const temporal = createTemporalClient(config);
  const ring = loadKeyRing(config, logger);
  const artifacts = new ArtifactStore(db);
  const signingKeys = new SigningKeys(db, ring, config.ACCESS_TOKEN_TTL_SECONDS);
  const connections = new ConnectionStore(db, ring);
  const audit = new AuditStore(db);
  const tokens = new TokenService(signingKeys, config.apiUri, config.ACCESS_TOKEN_TTL_SECONDS);
  const consents = new ConsentStore(db);
  const oauth = new OAuthStore(db);
  const outbound = createOutbound({
    allow: outboundAllowList(config),
    timeoutMs: config.MCP_OUTBOUND_TIMEOUT_MS,
    maxResponseBytes: config.MCP_OUTBOUND_MAX_BYTES,
  });
  const connectionWorkflows = new ConnectionWorkflows(() => temporal, config);
  const indexing = new IndexingWorkflows(() => temporal, config.TEMPORAL_TASK_QUEUE);
  const signInPolicy = {
    delayAfter: config.SIGN_IN_DELAY_AFTER,
    lockAfter: config.SIGN_IN_LOCK_AFTER,
    lockoutSeconds: config.SIGN_IN_LOCKOUT_SECONDS,
  };
  return {
    config,
    logger,
    store,
    db,
    temporal,
    temporalProbe: createTemporalProbe(config),
    signingKeys,
    tokens,
    users: new UserStore(db),
    containers: new ContainerStore(db),
    artifacts,
    events: new EventStore(db),
    eventWorkflows: new EventWorkflows(temporal, config.TEMPORAL_TASK_QUEUE, config.EVENTS_CONTINUE_AS_NEW_AFTER, {
      db,
      inline: config.EVENT_RELAY_INLINE,
      // A request answers once its write and its event's claim are stored; the signal follows it.
      background: { onError: (err) => logger.warn({ err }, 'events not relayed after their writes; the sweeper relays them') },
    }),
    subscriptions: new SubscriptionStore(db),
    subscriptionWorkflows: new SubscriptionWorkflows(() => temporal, config),
    serverCredentials: new ServerCredentialStore(db),
    apiKeys: new ApiKeyStore(db),
    consents,
    oauth,
    authorizationServer: new AuthorizationServer(
      oauth,
      consents,
      tokens,
      new MetadataDocumentClients(parseAllowList(config.OAUTH_METADATA_DOCUMENT_ALLOW), logger),
    ),
    browserSessions: new BrowserSessions(tokens, oauth),
    externalSignIn: externalSignIn(config, db, outbound, logger),
    secrets: new SecretStore(db, ring),
    audit,
    search: new SearchService(
      {
        config,
        logger,
        artifacts,
        changes: new SearchChangeStore(db),
        startIndexing: (doc) => indexing.start(doc),
        artifactsCollection: () => db.collection<ArtifactDoc>('artifacts'),
      },
      () => createEmbedder(config),
    ),
    versions: new VersionStore(db),
    commits: new CommitStore(db),
    commitWorkflows: new CommitWorkflows(temporal, config),
    imports: new ImportStore(db),
    relay: new RelayStore(db),
    mcpTasks: new McpTaskStore(db),
    importWorkflows: new ImportWorkflows(temporal, config),
    streamSessions: new StreamSessionStore(db),
    streamWorkflows: new StreamWorkflows(() => temporal, config),
    toolCallWorkflows: new ToolCallWorkflows(temporal, config),
    invocationWorkflows: new InvocationWorkflows(temporal, config),
    chatWorkflows: new ChatWorkflows(temporal, config),
    chatAnswers: new ChatAnswerStore(db),
    mcpCatalog: new McpCatalogStore(db),
    outbound,
    connections,
    projector: new Projector(connections, connectionWorkflows.refresh),
    connectionWorkflows,
    signIns: new SignInThrottle(new SignInEventStore(db), audit, signInPolicy, logger),
    rateLimits: createRateLimits(config),
    builtinServers,
  };
}

/** First-start work, idempotent and safe to run from several replicas at once. */
export async function bootstrap(services: Services): Promise<AdminBootstrap | null> {
  await ensureIndexes(services.db);
  await services.streamSessions.ensureIndexes();
  await services.signingKeys.init();
  await services.signingKeys.rotateIfOlderThan(services.config.SIGNING_KEY_ROTATION_DAYS);
  const admin = await ensureAdmin(services.config, services.users, services.logger);
  // The stdio catalog is read and the sandbox tried once, at start (a broken catalog stops the API here).
  const stdio = stdioServers(services.config);
  if (services.config.ALLOW_STDIO_MCP_SERVERS && stdio.off) services.logger.warn({ reason: stdio.off }, 'stdio MCP servers are off');
  await services.search.start();
  return admin;
}

export async function closeServices(services: Services): Promise<void> {
  await services.eventWorkflows.flush(); // each signal has its deadline
  await services.search.stop();
  await Promise.allSettled([
    services.outbound.close(),
    services.authorizationServer.documents.close(),
    services.store.close(),
    services.temporal.connection.close(),
    services.temporalProbe.close(),
  ]);
}
