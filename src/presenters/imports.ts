import { z } from 'zod';
import { importStates, outcomeStatuses, type ImportDoc, type ItemOutcome } from '../store/imports.js';
import { count, timestamp } from './schemas.js';

const countsSchema = z.object({
  done: count.describe('Items with an outcome: created + skipped + failed.'),
  created: count,
  skipped: count.describe('Already imported into this workspace under the same key: nothing written.'),
  failed: count,
  remaining: count,
});

export const importSchema = z
  .object({
    id: z.string(),
    workflow_id: z.string().describe('The Temporal run that writes the items (its `status` query answers the same counts).'),
    workspace_id: z.string(),
    requested_by: z.string(),
    source: z.enum(['json', 'ndjson', 'files', 'urls']),
    state: z.enum(importStates),
    total: count,
    counts: countsSchema,
    error: z.string().nullable().describe('Why a failed import stopped; what it imported before stays.'),
    created_at: timestamp,
    updated_at: timestamp,
    finished_at: timestamp.nullable(),
  })
  .meta({ id: 'Import' });
export type ImportView = z.output<typeof importSchema>;

export const importItemSchema = z
  .object({
    seq: count.describe('The item’s position in the request, from 0.'),
    key: z.string(),
    name: z.string().describe("A file's name, a URL, a document's title, or where a bad item was in the request (`line 3`, `items[2]`)."),
    status: z.enum(outcomeStatuses),
    artifact_id: z.string().nullable().describe('created: the new draft; skipped: the artifact imported before under the key.'),
    reason: z.string().nullable().describe('skipped and failed: a stable reason (`duplicate-key`, `unsupported-type`, `invalid-item`, …).'),
    message: z.string().nullable(),
    at: timestamp,
  })
  .meta({ id: 'ImportItem' });

export function presentImport(doc: ImportDoc): ImportView {
  return {
    id: doc._id,
    workflow_id: doc.workflow_id,
    workspace_id: doc.workspace_id,
    requested_by: doc.requested_by,
    source: doc.source,
    state: doc.state,
    total: doc.total,
    counts: { ...doc.counts, remaining: Math.max(0, doc.total - doc.counts.done) },
    error: doc.error ?? null,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
    finished_at: doc.finished_at?.toISOString() ?? null,
  };
}

export function presentImportItem(o: ItemOutcome): z.output<typeof importItemSchema> {
  return {
    seq: o.seq,
    key: o.key,
    name: o.name ?? o.key,
    status: o.status,
    artifact_id: o.artifact_id,
    reason: o.reason ?? null,
    message: o.message ?? null,
    at: o.at.toISOString(),
  };
}
