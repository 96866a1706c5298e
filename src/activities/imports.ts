import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import { grantsOf } from '../identity/grants.js';
import { principalOf, type Principal } from '../identity/principal.js';
import { baseType } from '../artifacts/content-types/index.js';
import { extractFile, ImportItemError, type ExtractedItem } from '../imports/extract.js';
import { fetchFile, FetchFileError } from '../imports/fetch-file.js';
import type { Config } from '../kernel/config/env.js';
import type { FetchLike } from '../net/outbound.js';
import { createDrafts, type NewDraft } from '../store/artifact-batch.js';
import { ContainerStore } from '../store/containers.js';
import {
  ImportStore,
  itemId,
  itemName,
  keyClaimId,
  type ImportCounts,
  type ItemOutcome,
  type KeyClaim,
  type StagedItem,
} from '../store/imports.js';
import { insertNew } from '../store/mongo.js';
import type { SearchChangeStore } from '../store/search-changes.js';
import { EventWorkflows } from '../workflow-clients/events.js';
import { IndexingWorkflows } from '../workflow-clients/indexing.js';
import { importRefusedFailure, type ImportBatchInput } from '../workflows/contracts/import-artifacts.js';

/** Items of a batch read at once: the reading threads (two on two cores) and a URL fetch in flight beside them. */
const readersPerBatch = 4;

type Resolved = { item: StagedItem; fields: ExtractedItem } | { item: StagedItem; failed: { reason: string; message: string } };

/** One staged item to an artifact's fields, or why not: files are read, URLs fetched, documents taken as they are. */
async function resolve(item: StagedItem, config: Config, fetch: FetchLike): Promise<Resolved> {
  const source = item.item;
  const limits = { maxBytes: config.IMPORT_MAX_ITEM_BYTES };
  try {
    switch (source.kind) {
      case 'invalid':
        return { item, failed: { reason: source.reason, message: source.message } };
      case 'document':
        return {
          item,
          fields: { title: source.title, content_type: source.content_type, content: source.content, context: source.context },
        };
      case 'file': {
        const file = { name: source.name, contentType: source.content_type, bytes: Buffer.from(source.data, 'base64') };
        return { item, fields: await extractFile(file, limits) };
      }
      case 'url':
        return { item, fields: await extractFile(await fetchFile(fetch, source.url, limits.maxBytes), limits) };
    }
  } catch (err) {
    if (err instanceof ImportItemError || err instanceof FetchFileError)
      return { item, failed: { reason: err.reason, message: err.message } };
    throw err;
  }
}

/**
 * The rules of a single create that an import keeps per item: the principal's scopes cover the
 * content type; platform types (servers, authorizers, automations…) are not imported, since their
 * content is checked, and their secrets resolved, only by POST /artifacts.
 */
function permitted(r: Resolved, principal: Principal): Resolved {
  if (!('fields' in r)) return r;
  const type = r.fields.content_type;
  if (baseType(type).startsWith('application/vnd.platform.'))
    return {
      item: r.item,
      failed: { reason: 'platform-type', message: `${type} is a platform type: create it with POST /artifacts, which checks its content.` },
    };
  if (!principal.scopes.allowsType('artifact:write', type))
    return { item: r.item, failed: { reason: 'insufficient-scope', message: `Your credential may not write ${type}.` } };
  return r;
}

const tally = (outcomes: ItemOutcome[], before: ImportCounts): ImportCounts => {
  const counts = { ...before };
  for (const o of outcomes) {
    counts.done++;
    counts[o.status]++;
  }
  return counts;
};

/**
 * The activities of `importArtifacts`. A batch resolves its items, claims their keys, creates the
 * drafts with their events in the outbox, records each item's outcome and the import's progress.
 * Every write is a unique insert or an absolute set, so a batch run again after a crash writes each
 * item once: its key claim names the artifact id it was given the first time.
 */
export function createImportActivities(deps: { config: Config; db: Db; changes: SearchChangeStore; fetch: FetchLike }) {
  const { config, db } = deps;
  const imports = new ImportStore(db);
  const containers = new ContainerStore(db);
  const clients = new WeakMap<object, { events: EventWorkflows; indexing: IndexingWorkflows }>();
  const workflowsFor = (client: ReturnType<typeof Context.current>['client']) => {
    let found = clients.get(client);
    if (!found) {
      found = {
        events: new EventWorkflows(client, config.TEMPORAL_TASK_QUEUE, config.EVENTS_CONTINUE_AS_NEW_AFTER, { db, inline: true }),
        indexing: new IndexingWorkflows(() => client, config.TEMPORAL_TASK_QUEUE),
      };
      clients.set(client, found);
    }
    return found;
  };

  async function batch(input: ImportBatchInput): Promise<ImportCounts> {
    const record = await imports.get(input.importId);
    if (!record) throw ApplicationFailure.nonRetryable(`Import ${input.importId} is gone.`, importRefusedFailure);
    // The requester's right to add to the workspace, checked again for every batch: a grant withdrawn mid-import stops it.
    const principal = principalOf(record.principal);
    const workspace = await containers.get('workspace', principal, input.workspaceId);
    if (!workspace || !grantsOf(workspace, principal.subject).has('C'))
      throw ApplicationFailure.nonRetryable(
        `${principal.subject} may no longer add to workspace ${input.workspaceId}.`,
        importRefusedFailure,
      );

    const recorded = await imports.outcomesIn(input.importId, input.from, input.to);
    const done = new Set(recorded.map((o) => o.seq));
    const staged = (await imports.staged(input.importId, input.from, input.to)).filter((item) => !done.has(item.seq));
    // Files are read (PDF and HTML in the reading threads) and URLs fetched a few at a time, in item order.
    const context = Context.current();
    const resolved: Resolved[] = new Array(staged.length);
    let next = 0;
    const reader = async () => {
      for (let i = next++; i < staged.length; i = next++) {
        resolved[i] = permitted(await resolve(staged[i]!, config, deps.fetch), principal);
        context.heartbeat();
      }
    };
    await Promise.all(Array.from({ length: readersPerBatch }, reader));
    const now = new Date();
    const outcome = (item: StagedItem, rest: Pick<ItemOutcome, 'status' | 'artifact_id' | 'reason' | 'message'>): ItemOutcome => ({
      _id: itemId(input.importId, item.seq),
      import_id: input.importId,
      seq: item.seq,
      key: item.key,
      name: itemName(item),
      ...rest,
      at: now,
    });
    const outcomes: ItemOutcome[] = [];
    const ready = resolved.filter((r): r is Extract<Resolved, { fields: ExtractedItem }> => 'fields' in r);
    for (const r of resolved) if ('failed' in r) outcomes.push(outcome(r.item, { status: 'failed', artifact_id: null, ...r.failed }));

    // Keys: the first claim of a workspace's key owns it; a retried batch finds its own claim and its artifact id.
    const held = await imports.claimKeys(
      ready.map(({ item }): KeyClaim => ({
        _id: keyClaimId(input.workspaceId, item.key),
        workspace_id: input.workspaceId,
        key: item.key,
        artifact_id: uuidv7(),
        import_id: input.importId,
        seq: item.seq,
      })),
    );
    const drafts: NewDraft[] = [];
    const source = { kind: 'import' as const, import_id: input.importId };
    ready.forEach(({ item, fields }, i) => {
      const claim = held[i]!;
      if (claim.import_id !== input.importId || claim.seq !== item.seq) {
        const by = claim.import_id === input.importId ? `item ${claim.seq} of this import` : `import ${claim.import_id}`;
        outcomes.push(
          outcome(item, {
            status: 'skipped',
            artifact_id: claim.artifact_id,
            reason: 'duplicate-key',
            message: `Key ${JSON.stringify(item.key)} was imported into this workspace before, by ${by}, as artifact ${claim.artifact_id}.`,
          }),
        );
        return;
      }
      const { search_text, ...rest } = fields;
      drafts.push({ id: claim.artifact_id, ...rest, source, ...(search_text !== undefined ? { search_text } : {}) });
      outcomes.push(outcome(item, { status: 'created', artifact_id: claim.artifact_id }));
    });

    if (drafts.length > 0) {
      const { docs, claims } = await createDrafts(db, principal.subject, workspace, drafts);
      // What follows each create, for the whole batch at once: the search change log (every API
      // replica indexes them on its next poll), the embeddings' queue, and the events' relay.
      const { events, indexing } = workflowsFor(context.client);
      await Promise.all([
        deps.changes.record(...docs.map((d) => d._id)),
        Promise.all(docs.map((d) => indexing.start(d))),
        events.relayPaced(input.workspaceId, claims, (err) =>
          // Reported from behind the activity, maybe after it completed: its own logger, not the ambient one.
          context.log.warn('import events not relayed; the sweeper relays them', {
            importId: input.importId,
            error: (err as Error).message,
          }),
        ),
      ]);
    }
    await insertNew(imports.outcomes, outcomes);
    const counts = tally([...recorded, ...outcomes], input.before);
    await imports.progress(input.importId, counts);
    return counts;
  }

  return {
    /** One batch of an import's items (see createImportActivities); heartbeats while its process lives. */
    async importBatch(input: ImportBatchInput): Promise<ImportCounts> {
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), 5_000);
      try {
        return await batch(input);
      } finally {
        clearInterval(beat);
      }
    },

    /** The import's final state, and its staged items removed (the outcomes are its report). */
    async finishImport(input: { importId: string; counts: ImportCounts; error?: string }): Promise<void> {
      await imports.finish(input.importId, input.error ? 'failed' : 'completed', input.counts, input.error);
    },
  };
}
