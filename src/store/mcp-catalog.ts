import type { Db } from 'mongodb';
import type { TypeDefinition } from '../content-types/type-definition.js';

export interface CatalogTool {
  name: string;
  title?: string;
  description?: string;
  input_schema: Record<string, unknown>;
  output_schema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  /** §2.12: the item's own icon, else the server's, else the generic MCP icon. */
  icon: string;
}

export interface CatalogResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mime_type?: string;
  icon: string;
}

export interface CatalogHealth {
  status: 'ok' | 'error';
  checked_at: Date;
  /** What went wrong, with credentials redacted. */
  error?: string;
  latency_ms?: number;
}

/**
 * What an external MCP server offered when it was last listed (id = the server artifact's id). Written
 * by the catalog refresh activity, on `notifications/tools/list_changed`, and read by the catalog
 * endpoints and the content-type lifecycle hooks.
 */
export interface CatalogDoc {
  _id: string;
  workspace_id: string;
  /** The server artifact revision this listing was made from: a changed registration is listed anew. */
  revision: number;
  server_info?: { name: string; version: string; title?: string };
  icon: string;
  instructions?: string;
  tools: CatalogTool[];
  resources: CatalogResource[];
  /** §2.10 content types the server ships as `type.json` resources. */
  content_types: TypeDefinition[];
  health: CatalogHealth;
  refreshed_at: Date;
}

export class McpCatalogStore {
  constructor(private readonly db: Db) {}

  private get coll() {
    return this.db.collection<CatalogDoc>('mcp_catalog');
  }

  get(serverId: string): Promise<CatalogDoc | null> {
    return this.coll.findOne({ _id: serverId });
  }

  getMany(serverIds: string[]): Promise<CatalogDoc[]> {
    return serverIds.length ? this.coll.find({ _id: { $in: serverIds } }).toArray() : Promise.resolve([]);
  }

  async put(doc: CatalogDoc): Promise<void> {
    await this.coll.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }

  /** A failed listing keeps what the server offered before and only records its health. */
  async markUnhealthy(serverId: string, workspaceId: string, revision: number, health: CatalogHealth, icon: string): Promise<void> {
    await this.coll.updateOne(
      { _id: serverId },
      { $set: { health, revision, workspace_id: workspaceId, refreshed_at: health.checked_at }, $setOnInsert: { icon, tools: [], resources: [], content_types: [] } },
      { upsert: true },
    );
  }

  /** The servers of a workspace that ship a definition of this content type. */
  typeServers(workspaceId: string, mime: string): Promise<CatalogDoc[]> {
    return this.coll.find({ workspace_id: workspaceId, 'content_types.mime': mime.toLowerCase(), 'health.status': 'ok' }).toArray();
  }

  /** Registered content types in these workspaces. */
  typesIn(workspaceIds: string[]): Promise<CatalogDoc[]> {
    return this.coll.find({ workspace_id: { $in: workspaceIds }, 'content_types.0': { $exists: true } }).toArray();
  }

  async delete(serverId: string): Promise<void> {
    await this.coll.deleteOne({ _id: serverId });
  }
}
