import type { ConnectionDoc } from '../store/connections.js';
import { connectionWorkflowId } from '../workflows/contracts/ids.js';

/** A connection as the API shows it: never a token. */
export function presentConnection(doc: ConnectionDoc) {
  return {
    id: doc._id,
    authorizer_id: doc.authorizer_id,
    user_id: doc.user_id,
    status: doc.status,
    server_client_ids: doc.server_client_ids,
    granted_scopes: doc.granted_scopes ?? null,
    has_refresh_token: doc.has_refresh_token ?? false,
    expires_at: doc.expires_at?.toISOString() ?? null,
    connected_at: doc.connected_at?.toISOString() ?? null,
    refreshed_at: doc.refreshed_at?.toISOString() ?? null,
    refresh_count: doc.refresh_count,
    error: doc.error ? { code: doc.error.code, detail: doc.error.detail, at: doc.error.at.toISOString() } : null,
    workflow_id: connectionWorkflowId(doc._id),
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}
