import { z } from 'zod';
import { connectionStatuses, type ConnectionDoc } from '../store/connections.js';
import { connectionWorkflowId } from '../workflows/contracts/ids.js';
import { count, timestamp } from './schemas.js';

export const connectionSchema = z
  .object({
    id: z.string(),
    authorizer_id: z.string(),
    user_id: z.string(),
    status: z.enum(connectionStatuses),
    server_client_ids: z.array(z.string()).describe('Server credentials that may project it.'),
    granted_scopes: z.array(z.string()).nullable(),
    has_refresh_token: z.boolean(),
    expires_at: timestamp.nullable(),
    connected_at: timestamp.nullable(),
    refreshed_at: timestamp.nullable(),
    refresh_count: count,
    error: z.object({ code: z.string(), detail: z.string(), at: timestamp }).nullable(),
    workflow_id: z.string(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Connection' });
export type Connection = z.output<typeof connectionSchema>;

/** `POST /connections/{authorizer_id}/start`: the connection, and where to send the person to consent. */
export const startedConnectionSchema = connectionSchema
  .extend({
    authorization_url: z.string(),
    attempt_expires_at: timestamp,
    redirect_uri: z.string(),
  })
  .meta({ id: 'StartedConnection' });

export const deletedConnectionSchema = z
  .object({ id: z.string(), deleted: z.literal(true), revoked_at_provider: z.boolean() })
  .meta({ id: 'DeletedConnection' });

/** `POST /connections/{id}/project`: the headers a server sends the provider (never logged or stored). */
export const projectionSchema = z
  .object({
    connection_id: z.string(),
    headers: z.record(z.string(), z.string()),
    expires_at: timestamp.nullable(),
  })
  .meta({ id: 'ConnectionProjection' });

/** A connection as the API shows it: never a token. */
export function presentConnection(doc: ConnectionDoc): Connection {
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
