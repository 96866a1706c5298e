import { ApplicationFailure, Context } from '@temporalio/activity';
import { writeFollowers } from './write-followers.js';
import type { Db } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import { grantsOf } from '../identity/grants.js';
import { principalOf, type Principal } from '../identity/principal.js';
import { baseType, validateContent } from '../artifacts/content-types/index.js';
import { Problem } from '../kernel/errors/problem.js';
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
import { importRefusedFailure, type ImportBatchInput, type ImportBatchResult } from '../workflows/contracts/import-artifacts.js';

/** Items of a batch read at once: the reading threads (two on two cores) and a URL fetch in flight beside them. */
const readersPerBatch = 4;
/**
 * How long a batch goes on taking items to read: past it, the batch writes the items read so far and
 * the workflow starts the next batch from there. Slow URLs (each up to its fetch deadline) or large
 * PDFs then never hold an activity past its timeout, and a retry never reads them all again.
 */
const readingBudgetMs = 3 * 60_000;

type Resolved = { item: StagedItem; fields: ExtractedItem } | { item: StagedItem; failed: { reason: string; message: string } };

/** One staged item to an artifact's fields, or why not: files are read, URLs fetched, documents taken as they are. */
async function resolve(item: StagedItem, config: Config, fetch: FetchLike, signal: AbortSignal): Promise<Resolved> {
  const source = item.item;
  const limits = { maxBytes: config.IMPORT_MAX_ITEM_BYTES };
  try {
    switch (source.kind) {
      case 'invalid':
        return { item, failed: { reason: source.reason, message: source.message } };
      case 'document': {
        // What POST /artifacts checks of a document's content (JSON that parses, within the depth limit).
        const problem = contentProblem(source.content_type, source.content);
        if (problem) return { item, failed: { reason: 'invalid-item', message: problem } };
        return {
          item,
          fields: { title: source.title, content_type: source.content_type, content: source.content, context: source.context },
        };
      }
      case 'file': {
        const file = { name: source.name, contentType: source.content_type, bytes: Buffer.from(source.data, 'base64') };
        return { item, fields: await extractFile(file, limits) };
      }
      case 'url':
        return { item, fields: await extractFile(await fetchFile(fetch, source.url, limits.maxBytes, signal), limits) };
    }
  } catch (err) {
    if (err instanceof ImportItemError || err instanceof FetchFileError)
      return { item, failed: { reason: err.reason, message: err.message } };
    // Reading one item touches no store: whatever else it throws is about that item, which must not
    // hold up the rest of its batch (retried, it would throw again, forever).
    return {
      item,
      failed: { reason: 'unreadable', message: `The item could not be read: ${String((err as Error)?.message ?? err).slice(0, 500)}` },
    };
  }
}

/** Why a document's content would be refused by POST /artifacts, or null (platform types are refused apart: permitted). */
function contentProblem(contentType: string, content: string): string | null {
  if (baseType(contentType).startsWith('application/vnd.platform.')) return null;
  try {
    // Non-platform types never reach the stdio policy (only an MCP server registration does).
    validateContent(contentType, content, { stdio: undefined as never, inCollection: false });
    return null;
  } catch (err) {
    return err instanceof Problem ? err.message : String(err);
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
  const workflowsFor = writeFollowers(config, db);

  async function batch(input: ImportBatchInput): Promise<ImportBatchResult> {
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
    const all = await imports.staged(input.importId, input.from, input.to);
    // Files are read (PDF and HTML in the reading threads) and URLs fetched a few at a time, in item
    // order, until the reading budget is spent; the batch then ends after the items read without a gap.
    const context = Context.current();
    const until = Date.now() + readingBudgetMs;
    const pending = all.filter((item) => !done.has(item.seq));
    const read: (Resolved | undefined)[] = new Array(pending.length);
    let taken = 0;
    const reader = async () => {
      for (let i = taken++; i < pending.length && (i === 0 || Date.now() < until); i = taken++) {
        read[i] = permitted(await resolve(pending[i]!, config, deps.fetch, context.cancellationSignal), principal);
        context.heartbeat();
      }
    };
    await Promise.all(Array.from({ length: readersPerBatch }, reader));
    const gap = read.findIndex((r) => r === undefined);
    const resolved = (gap < 0 ? read : read.slice(0, gap)) as Resolved[];
    const next = gap < 0 ? input.to : pending[gap]!.seq;
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
    // An item that failed now but was claimed by an earlier attempt of this batch (its URL answered
    // then) gives its key back: no claim may name an artifact that was never made.
    await imports.releaseKeys(
      input.importId,
      outcomes.filter((o) => o.status === 'failed').map((o) => ({ _id: keyClaimId(input.workspaceId, o.key), seq: o.seq })),
    );
    await insertNew(imports.outcomes, outcomes);
    const counts = tally([...recorded.filter((o) => o.seq < next), ...outcomes], input.before);
    await imports.progress(input.importId, counts);
    return { counts, next };
  }

  return {
    /** One batch of an import's items (see createImportActivities); heartbeats while its process lives. */
    async importBatch(input: ImportBatchInput): Promise<ImportBatchResult> {
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
