import type { Db } from 'mongodb';
import { asyncLocalStorage, Context } from '@temporalio/activity';
import { loadKeyRing } from './bootstrap/master-key.js';
import { Projector } from '../connections/projection.js';
import { ConnectionWorkflows } from '../workflow-clients/connection.js';
import { ConnectionStore } from '../store/connections.js';
import type { Config } from '../kernel/config/env.js';
import type { Logger } from '../kernel/logging/logger.js';
import { createOutbound } from '../net/outbound.js';
import { outboundAllowList } from '../net/allow-list.js';
import { ArtifactStore } from '../store/artifacts.js';
import { McpCatalogStore } from '../store/mcp-catalog.js';
import { SecretStore } from '../store/secrets.js';
import type { ActivityMcp } from '../activities/index.js';
import { ExternalServers } from '../mcp-client/external.js';
import { stdioServers } from '../stdio-servers/index.js';
import { SessionPool } from '../mcp-client/session-pool.js';
import { DelegationTokens } from '../identity/delegation.js';
import { SigningKeys } from '../identity/signing-keys.js';
import { ServerCredentialStore } from '../store/server-credentials.js';
import { RelayedCalls } from '../relay/calls.js';
import { RelayStore } from '../store/relay.js';

export interface McpClient extends ActivityMcp {
  close(): Promise<void>;
}

/**
 * A worker's MCP client: the guarded outbound HTTP client, the session pool, the OAuth projections
 * of the oauth2 `auth` mode (refreshed through the connection's workflow, with the activity's client),
 * and what they close.
 */
export function createMcpClient(config: Config, db: Db, logger: Logger): McpClient {
  const allow = outboundAllowList(config);
  const discovery = createOutbound({ allow, timeoutMs: config.MCP_OUTBOUND_TIMEOUT_MS, maxResponseBytes: config.MCP_OUTBOUND_MAX_BYTES });
  // A tool that answers with plain JSON sends nothing until it is done: the call's own timeout (which
  // progress resets) bounds it, not the outbound one, which still bounds connecting.
  const transport = createOutbound({
    allow,
    timeoutMs: (config.MCP_CALL_MAX_SECONDS + 60) * 1000,
    connectTimeoutMs: config.MCP_OUTBOUND_TIMEOUT_MS,
    maxResponseBytes: config.MCP_OUTBOUND_MAX_BYTES,
  });
  const pool = new SessionPool(config.MCP_CONNECTION_IDLE_SECONDS * 1000, logger);
  const ring = loadKeyRing(config, logger);
  const secrets = new SecretStore(db, ring);
  const connections = new ConnectionStore(db, ring);
  const stdio = stdioServers(config);
  if (config.ALLOW_STDIO_MCP_SERVERS && stdio.off) logger.warn({ reason: stdio.off }, 'stdio MCP servers are off on this worker');
  const external = new ExternalServers({
    artifacts: new ArtifactStore(db),
    secrets,
    projector: new Projector(connections, new ConnectionWorkflows(() => Context.current().client, config).refresh),
    catalog: new McpCatalogStore(db),
    pool,
    outbound: { fetch: transport.fetch, fetchJson: discovery.fetchJson },
    logger,
    resultMaxBytes: config.MCP_RESULT_MAX_BYTES,
    stdio,
    defaultTimeoutMs: config.MCP_CALL_TIMEOUT_SECONDS * 1000,
    relayed: new RelayedCalls(new RelayStore(db)),
    activity: () => {
      const context = asyncLocalStorage.getStore();
      if (!context) return undefined;
      const { info } = context;
      const run = info.workflowExecution;
      return {
        lineage: `${run?.workflowId}/${run?.runId}/${info.activityId}`,
        attempt: info.attempt,
        cancelRequested: () => context.cancellationDetails?.cancelRequested ?? false,
      };
    },
  });
  return {
    external,
    fetch: discovery.fetch,
    secrets,
    connections,
    // The API's signing keys, read from the same database: a delegation token verifies against /.well-known/jwks.json.
    delegations: {
      tokens: new DelegationTokens(new SigningKeys(db, ring, config.ACCESS_TOKEN_TTL_SECONDS), config.apiUri),
      credentials: new ServerCredentialStore(db),
    },
    close: async () => void (await Promise.allSettled([pool.close(), discovery.close(), transport.close()])),
  };
}
