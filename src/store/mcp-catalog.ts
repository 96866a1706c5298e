import type { Db } from 'mongodb';
import type { TypeDefinition } from '../artifacts/content-types/type-definition.js';
import { findByIds } from './by-id.js';

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
  /** The MCP revision the listing session negotiated (a relayed listing does not say). */
  protocol_version?: string;
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

/**
 * As stored: tools and resources as JSON text, since their JSON Schemas carry keys such as `$schema`
 * that MongoDB-wire servers refuse as field names.
 */
type StoredCatalogDoc = Omit<CatalogDoc, 'tools' | 'resources'> & { tools: string; resources: string };

const decode = (doc: StoredCatalogDoc): CatalogDoc => ({
  ...doc,
  tools: JSON.parse(doc.tools || '[]'),
  resources: JSON.parse(doc.resources || '[]'),
});

export class McpCatalogStore {
  constructor(private readonly db: Db) {}

  private get coll() {
    return this.db.collection<StoredCatalogDoc>('mcp_catalog');
  }

  async get(serverId: string): Promise<CatalogDoc | null> {
    const doc = await this.coll.findOne({ _id: serverId });
    return doc && decode(doc);
  }

  async getMany(serverIds: string[]): Promise<CatalogDoc[]> {
    return (await findByIds(this.coll, serverIds)).map(decode);
  }

  async put(doc: CatalogDoc): Promise<void> {
    await this.coll.replaceOne(
      { _id: doc._id },
      { ...doc, tools: JSON.stringify(doc.tools), resources: JSON.stringify(doc.resources) },
      { upsert: true },
    );
  }

  /** A failed listing keeps what the server offered before and only records its health. */
  async markUnhealthy(serverId: string, workspaceId: string, revision: number, health: CatalogHealth, icon: string): Promise<void> {
    await this.coll.updateOne(
      { _id: serverId },
      {
        $set: { health, revision, workspace_id: workspaceId, refreshed_at: health.checked_at },
        $setOnInsert: { icon, tools: '[]', resources: '[]', content_types: [] },
      },
      { upsert: true },
    );
  }

  /** The servers of a workspace that ship a definition of this content type. */
  async typeServers(workspaceId: string, mime: string): Promise<CatalogDoc[]> {
    return (
      // Oldest registration first (ids are UUIDv7): the server a type's hooks and viewer come from
      // does not depend on the store's natural order.
      (
        await this.coll
          .find({ workspace_id: workspaceId, 'content_types.mime': mime.toLowerCase(), 'health.status': 'ok' })
          .sort({ _id: 1 })
          .toArray()
      ).map(decode)
    );
  }

  async delete(serverId: string): Promise<void> {
    await this.coll.deleteOne({ _id: serverId });
  }
}
