// What the browsing pages read from the API: containers, artifacts, search results, an opened artifact.
import type { ContainerKind, SearchHit } from './search-api';
import type { ViewerRef } from './viewer/frame';

export type { ContainerKind };

/** GET /workspaces/{id}, GET /collections/{id}. */
export interface Container {
  id: string;
  kind: ContainerKind;
  name: string;
  description?: string;
  owner_id?: string;
  created_at?: string;
  updated_at?: string;
}

/** GET /artifacts/{id} (a built-in agent or server has no container and no provenance). */
export interface Artifact {
  id: string;
  title: string;
  content_type: string;
  content: string;
  context?: Record<string, unknown>;
  collection_id: string | null;
  container: ContainerKind | null;
  state: 'draft' | 'archived' | 'committed' | string;
  revision: number;
  version?: number;
  archived_at?: string;
  provenance?: { created_by: string; created_at: string; updated_by: string; updated_at: string; source?: unknown };
}

/** POST /artifacts/search: each result with the fused RRF score and each retriever's rank and score. */
export interface SearchResponse {
  query: string;
  preset: string;
  results: SearchHit[];
  retrievers: { lexical: { candidates: number }; semantic: { candidates: number; kept: number; embedder: string } };
  took_ms: number;
}

/** POST /artifacts/{id}/open. */
export interface Opened {
  artifact: Artifact;
  type: unknown;
  on_open: { status: 'skipped' | 'completed' | 'running'; reason?: string; invocation_id?: string };
  viewer?: ViewerRef | null;
}

/** The console's page for a container. */
export const containerPath = (kind: ContainerKind, id: string) =>
  `/console/${kind === 'workspace' ? 'workspaces' : 'collections'}/${encodeURIComponent(id)}`;

export const artifactPath = (id: string) => `/console/artifacts/${encodeURIComponent(id)}`;
