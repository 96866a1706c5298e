import type { Db } from 'mongodb';
import type { Config } from '../kernel/config/env.js';
import type { Embedder } from '../search/embedder.js';
import { ArtifactStore } from '../store/artifacts.js';
import { EventStore } from '../store/events.js';
import { SearchChangeStore } from '../store/search-changes.js';
import type { ExternalServers } from '../mcp-client/external.js';
import type { FetchLike } from '../net/outbound.js';
import type { ConnectionStore } from '../store/connections.js';
import type { SecretStore } from '../store/secrets.js';
import { createConnectionActivities } from './connection.js';
import { createCommitActivities } from './commit.js';
import { createInvocationActivities } from './invocation.js';
import { createToolCallActivities, type Delegations } from './tool-call.js';
import { createEventActivities } from './events.js';
import { createEventDispatchActivities } from './event-dispatch.js';
import { createSubscriptionActivities, subscriptionNotifier } from './subscriptions.js';
import { createAutomationTrigger } from '../automations/trigger.js';
import { EmbeddingBacklog } from '../store/embedding-backlog.js';
import { createIndexingActivities } from './indexing.js';
import { createImportActivities } from './imports.js';
import { createStreamActivities } from './stream.js';
import { createChatActivities } from './chat.js';

/** What the activities need of the worker's MCP client (built by its composition root, main/mcp-client.ts). */
export interface ActivityMcp {
  external: ExternalServers;
  /** The guarded client for short requests (discovery documents, OAuth token endpoints). */
  fetch: FetchLike;
  secrets: SecretStore;
  connections: ConnectionStore;
  /** Delegation tokens for first-party servers (SPEC §5.7), minted with the platform's signing keys. */
  delegations: Delegations;
}

/** Activities: all I/O the workflows need, bound to the worker's MongoDB, embedder and MCP client (whose outbound client and stores OAuth connections share). */
export function createActivities(config: Config, db: Db, embedder: Embedder, mcp: ActivityMcp) {
  const { external } = mcp;
  const artifacts = new ArtifactStore(db);
  const changes = new SearchChangeStore(db);
  return {
    ...createEventActivities(new EventStore(db)),
    ...createEventDispatchActivities({
      notifySubscriptions: subscriptionNotifier(config, db),
      runAutomations: createAutomationTrigger(config, db),
    }),
    ...createSubscriptionActivities(config, db, { secrets: mcp.secrets, fetch: mcp.fetch }),
    ...createIndexingActivities({ artifacts, changes, embedder, backlog: new EmbeddingBacklog(db) }),
    ...createCommitActivities(config, db, { artifacts, changes, embedder, external }),
    ...createImportActivities({ config, db, changes, fetch: mcp.fetch }),
    ...createStreamActivities({ config, db, secrets: mcp.secrets, changes }),
    ...createToolCallActivities(external, {
      artifacts,
      changes,
      delegations: mcp.delegations,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
    }),
    ...createInvocationActivities(config, db, { artifacts, changes, external }),
    ...createChatActivities(config, db, { artifacts, changes }),
    ...createConnectionActivities({
      connections: mcp.connections,
      artifacts,
      secrets: mcp.secrets,
      fetch: mcp.fetch,
      apiUri: config.apiUri,
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
