import { z } from 'zod';
import { viewSorts } from '../artifacts/content-types/view.js';
import { tagsOf } from '../artifacts/view-filter.js';
import { stateOf, type ArtifactDoc } from '../store/artifacts.js';
import type { ContainerKind } from '../store/containers.js';
import { artifactStates } from './index.js';
import { containerKinds, count, timestamp } from './schemas.js';

/** One artifact a view matches: what a list shows, never its content (GET /artifacts/{id} has it). */
export const viewItemSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    content_type: z.string(),
    state: z.enum(artifactStates),
    container: z.object({ kind: z.enum(containerKinds), id: z.string() }),
    tags: z.array(z.string()).describe("The artifact's `context.tags` (its strings)."),
    revision: count,
    created_at: timestamp,
    updated_at: timestamp,
    score: z.number().optional().describe('With a query: the search score (Σ weight / (60 + rank)).'),
  })
  .meta({ id: 'ViewItem' });
export type ViewItem = z.output<typeof viewItemSchema>;

/** A source of the view as the caller sees it: one they cannot read is named, never listed. */
export const viewSourceSchema = z
  .object({
    kind: z.enum(containerKinds),
    id: z.string(),
    readable: z.boolean().describe('False: you cannot read it (or it is gone); nothing of it is in the results.'),
    name: z.string().optional(),
  })
  .meta({ id: 'ViewSource' });
export type ViewSource = z.output<typeof viewSourceSchema>;

/** `GET /artifacts/{id}/results`, each message of its stream, and `get_view_results`. */
export const viewResultsSchema = z
  .object({
    view: z.object({ id: z.string(), title: z.string(), revision: count }),
    sort: z.enum(viewSorts),
    limit: count,
    items: z.array(viewItemSchema),
    more: z
      .boolean()
      .describe(
        'More artifacts may match than are listed: `limit` of them are, or a large source was read only so far (its first 4,000 artifacts in this order) for a filter that keeps few.',
      ),
    sources: z.array(viewSourceSchema),
    digest: z
      .string()
      .describe('Changes whenever the listed results do (their ids, order and revisions): the stream sends it as the event id.'),
    evaluated_at: timestamp,
  })
  .meta({ id: 'ViewResults' });
export type ViewResults = z.output<typeof viewResultsSchema>;

export function presentViewItem(doc: ArtifactDoc, score?: number): ViewItem {
  return {
    id: doc._id,
    title: doc.title,
    content_type: doc.content_type,
    state: stateOf(doc),
    container: { kind: doc.container_kind as ContainerKind, id: doc.collection_id },
    tags: tagsOf(doc.context),
    revision: doc.revision,
    created_at: doc.provenance.created_at.toISOString(),
    updated_at: doc.provenance.updated_at.toISOString(),
    ...(score !== undefined ? { score } : {}),
  };
}
