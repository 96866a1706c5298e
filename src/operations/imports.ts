import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';
import { requireGrant } from '../identity/grants.js';
import { snapshotOf } from '../identity/principal.js';
import { importRequestHash, readImport } from '../imports/request.js';
import { problems } from '../kernel/errors/problem.js';
import { itemId, noCounts, type ImportDoc, type OutcomeStatus } from '../store/imports.js';
import type { Page } from '../store/pagination.js';
import { importWorkflowId } from '../workflows/contracts/ids.js';
import type { OperationContext } from './services.js';

const idempotencyNamespace = '6b1f0e52-93a7-4c1d-8e2b-5a4d7c9f3e18';

/** A workspace the principal may add drafts to (C grant), or 404 when it is not a visible workspace. */
async function addableWorkspace(ctx: OperationContext, workspaceId: string) {
  const principal = ctx.state.principal;
  const workspace = await ctx.services.containers.get('workspace', principal, workspaceId);
  if (!workspace) throw problems.notFound('workspace', workspaceId);
  requireGrant(workspace, principal, 'C');
  return workspace;
}

/**
 * Records an import and starts its workflow: the body is read into items (readImport), staged in the
 * store, and handed to `importArtifacts`, which writes them in batches. With an Idempotency-Key, a
 * replay answers the import recorded first (the same items, or 409 for others).
 */
export async function requestImport(
  ctx: OperationContext,
  workspaceId: string,
  body: { mediaType: string; contentType: string; raw: Buffer },
  key: string | null,
): Promise<{ created: boolean; doc: ImportDoc }> {
  const principal = ctx.state.principal;
  const { config, imports, importWorkflows, logger } = ctx.services;
  await addableWorkspace(ctx, workspaceId);
  const { source, items } = await readImport(body.mediaType, body.contentType, body.raw, {
    maxItems: config.IMPORT_MAX_ITEMS,
    maxItemBytes: config.IMPORT_MAX_ITEM_BYTES,
  });
  if (items.length === 0) throw problems.validation('The import holds no item.', [{ name: 'body', reason: 'is empty' }]);
  const id = key ? uuidv5(`${principal.subject}:${key}`, idempotencyNamespace) : uuidv7();
  const now = new Date();
  const fresh: ImportDoc = {
    _id: id,
    workflow_id: importWorkflowId(workspaceId, id),
    workspace_id: workspaceId,
    requested_by: principal.subject,
    principal: snapshotOf(principal),
    source,
    request_hash: importRequestHash(workspaceId, items),
    total: items.length,
    counts: noCounts,
    state: 'running',
    created_at: now,
    updated_at: now,
    finished_at: null,
  };
  const earlier = key ? await imports.get(id) : null;
  if (earlier && earlier.request_hash !== fresh.request_hash)
    throw problems.conflict('idempotency-key-reused', 'This Idempotency-Key was used for a different import request.');
  if (earlier && earlier.state !== 'running') return { created: false, doc: earlier };
  // Staged before the record, so a record always has its items (a replay stages what is missing).
  try {
    await imports.stage(items.map((item, seq) => ({ _id: itemId(id, seq), import_id: id, seq, key: item.key, item: item.item })));
  } catch (err) {
    if (!earlier && !key) await imports.discard(id).catch(() => {}); // with a key, a retry stages the rest
    throw err;
  }
  const { doc, created } = earlier ? { doc: earlier, created: false } : await imports.create(fresh);
  if (!created && doc.request_hash !== fresh.request_hash)
    throw problems.conflict('idempotency-key-reused', 'This Idempotency-Key was used for a different import request.');
  try {
    await importWorkflows.start(doc);
  } catch (err) {
    if (created) await imports.discard(id);
    logger.error({ request_id: ctx.state.requestId, err }, 'import workflow not started');
    throw problems.unavailable('The import could not be started: Temporal did not accept it. Nothing was recorded; retry.');
  }
  return { created, doc };
}

/** An import in a workspace the principal can see, or 404. */
export async function visibleImport(ctx: OperationContext, id: string): Promise<ImportDoc> {
  const doc = await ctx.services.imports.get(id);
  if (!doc || !(await ctx.services.containers.get('workspace', ctx.state.principal, doc.workspace_id)))
    throw problems.notFound('import', id);
  return doc;
}

export async function listImports(ctx: OperationContext, workspaceId: string, limit: number, cursor?: string): Promise<Page<ImportDoc>> {
  if (!(await ctx.services.containers.get('workspace', ctx.state.principal, workspaceId)))
    throw problems.notFound('workspace', workspaceId);
  return ctx.services.imports.list(workspaceId, limit, cursor);
}

export async function listImportItems(
  ctx: OperationContext,
  id: string,
  status: OutcomeStatus | undefined,
  limit: number,
  cursor?: string,
) {
  const doc = await visibleImport(ctx, id);
  return ctx.services.imports.outcomePage(doc._id, status, limit, cursor);
}
