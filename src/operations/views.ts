import { createHash } from 'node:crypto';
import { viewType, baseType } from '../artifacts/content-types/index.js';
import { viewContent, type ViewContent } from '../artifacts/content-types/view.js';
import { grantsOf } from '../identity/grants.js';
import { problems } from '../kernel/errors/problem.js';
import { presentViewItem, type ViewItem, type ViewResults, type ViewSource } from '../presenters/views.js';
import type { ArtifactDoc } from '../store/artifact-doc.js';
import { inParallelSlices } from '../store/by-id.js';
import type { ContainerDoc, ContainerKind } from '../store/containers.js';
import { maxScan, ViewQueryStore, type ContainerRows, type StoredOrder } from '../store/view-queries.js';
import { viewMatcher } from '../artifacts/view-filter.js';
import { visibleArtifact } from './artifacts.js';
import { maxSearchLimit, runSearch, searchBody } from './search.js';
import type { OperationContext, Services } from './services.js';

/**
 * A view's results (issue #36): the artifacts of its sources that match its filter, in its order, at
 * most its limit, each source seen as the caller sees it. A view never widens access: a source the
 * caller cannot read is reported (`readable: false`) and contributes nothing; the caller's type
 * scopes apply as to any list; a query searches only where the caller may search.
 */

const queryStores = new WeakMap<Services, ViewQueryStore>();
export const viewQueries = (services: Services) => {
  let store = queryStores.get(services);
  if (!store) queryStores.set(services, (store = new ViewQueryStore(services.db)));
  return store;
};

/** A view the caller can read, with its filter; 409 when the artifact is no view, or holds one stored before views were checked. */
export async function readableView(ctx: OperationContext, id: string): Promise<{ doc: ArtifactDoc; view: ViewContent }> {
  const { doc } = await visibleArtifact(ctx, id);
  if (baseType(doc.content_type) !== viewType)
    throw problems.conflict('not-a-view', `Artifact ${id} is a ${baseType(doc.content_type)}, not a view (${viewType}).`);
  let parsed;
  try {
    parsed = viewContent.safeParse(JSON.parse(doc.content));
  } catch {
    parsed = null;
  }
  if (!parsed?.success)
    throw problems.conflict('invalid-view', `View ${id} holds no valid view (stored before views were checked?): update its content.`);
  return { doc, view: parsed.data };
}

/** GET /artifacts/{id}/results and get_view_results. */
export async function viewResults(ctx: OperationContext, id: string): Promise<ViewResults> {
  const { doc, view } = await readableView(ctx, id);
  return evaluateView(ctx, doc, view);
}

export interface Source {
  kind: ContainerKind;
  id: string;
  container: ContainerDoc | null;
}

/** Each source as the caller sees it now (null: not readable, or gone: the same to them). */
export async function viewSources(ctx: OperationContext, view: ViewContent): Promise<Source[]> {
  const wanted: { kind: ContainerKind; id: string }[] = [
    ...view.sources.workspaces.map((id) => ({ kind: 'workspace' as const, id })),
    ...(view.sources.collections ?? []).map((id) => ({ kind: 'collection' as const, id })),
  ];
  return inParallelSlices(wanted, async (s) => ({ ...s, container: await ctx.services.containers.get(s.kind, ctx.state.principal, s.id) }));
}

/** The results of a view already read; `sources` when the caller has just looked them up (ViewWatch). */
export async function evaluateView(
  ctx: OperationContext,
  doc: ArtifactDoc,
  view: ViewContent,
  sources: Source[] | null = null,
): Promise<ViewResults> {
  sources ??= await viewSources(ctx, view);
  const readable = sources.filter((s): s is Source & { container: ContainerDoc } => s.container !== null);
  const { items, more } = view.filter.query ? await searched(ctx, view, readable) : await stored(ctx, view, readable);
  const presented = items.map((i) => presentViewItem(i.doc, i.score));
  return {
    view: { id: doc._id, title: doc.title, revision: doc.revision },
    sort: view.sort,
    limit: view.limit,
    items: presented,
    more,
    sources: sources.map((s): ViewSource => ({
      kind: s.kind,
      id: s.id,
      readable: s.container !== null,
      ...(s.container ? { name: s.container.name } : {}),
    })),
    digest: digestOf(doc.revision, presented, sources, more),
    evaluated_at: new Date().toISOString(),
  };
}

/** What changes whenever the answer does (its items, which sources are readable, `more`), and on every edit of the view. */
function digestOf(viewRevision: number, items: ViewItem[], sources: Source[], more: boolean): string {
  const h = createHash('sha256').update(`v${viewRevision}|${more}`);
  for (const s of sources) h.update(`|${s.id}:${s.container ? s.container.name : '-'}`);
  for (const i of items) h.update(`|${i.id}:${i.revision}:${i.state}`);
  return h.digest('base64url').slice(0, 22);
}

type Found = { doc: ArtifactDoc; score?: number };

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const compareBy: Record<StoredOrder, (a: ArtifactDoc, b: ArtifactDoc) => number> = {
  updated_desc: (a, b) => b.provenance.updated_at.getTime() - a.provenance.updated_at.getTime() || cmp(b._id, a._id),
  created_desc: (a, b) => cmp(b._id, a._id),
  title_asc: (a, b) => cmp(a.title, b.title) || cmp(a._id, b._id),
  position: (a, b) => cmp(a.order_key, b.order_key),
};

/** Rows a source's first read asks for when the view filters (a filter that keeps half needs twice the limit). */
const filteredFirstRead = 100;
/** Rows one evaluation reads at most over all its sources (each source at most `maxScan`, and its limit at least). */
const maxRowsPerEvaluation = 20_000;

/**
 * Without a query: each readable source's first `limit + 1` matches in the view's order (store/view-
 * queries.ts: an ordered index read that grows only as far as the filter needs), merged here. The cost
 * is about sources × limit rows when the filter keeps most, and never touches other containers.
 * `position` lists the sources one after the other, each in its own order (mergeSources).
 */
async function stored(ctx: OperationContext, view: ViewContent, readable: Source[]): Promise<{ items: Found[]; more: boolean }> {
  const order = view.sort as StoredOrder;
  const keep = viewMatcher(view.filter, ctx.state.principal.scopes.typeLimits('artifact:read'));
  const filtered = Boolean(view.filter.content_types || view.filter.tags || view.filter.context);
  const pages = await inParallelSlices(readable, (s) =>
    viewQueries(ctx.services).first({
      containerId: s.id,
      order,
      want: view.limit + 1,
      // The container's kind too: the read is by id alone, and a source names a workspace or a collection.
      keep: (doc) => doc.container_kind === s.kind && keep(doc),
      firstRead: filtered ? Math.max(filteredFirstRead, view.limit + 1) : view.limit + 1,
      maxScan: Math.max(view.limit + 1, Math.min(maxScan, Math.floor(maxRowsPerEvaluation / readable.length))),
    }),
  );
  const merged = mergeSources(order, pages, view.limit);
  return { items: merged.rows.map((doc) => ({ doc })), more: merged.more };
}

/**
 * The sources' rows as one list in `order`, at most `limit`, and whether more may match. `position`
 * lists the sources one after the other. A source read only up to its scan bound (`cutAt`) limits
 * what can be listed: nothing that sorts after the point where its reading stopped, since its unread
 * rows might come first (and in `position`, no later source).
 */
export function mergeSources(order: StoredOrder, pages: ContainerRows[], limit: number): { rows: ArtifactDoc[]; more: boolean } {
  let all: ArtifactDoc[];
  let cut = false;
  if (order === 'position') {
    all = [];
    for (const page of pages) {
      all.push(...page.rows);
      if (page.cutAt) {
        cut = true;
        break;
      }
    }
  } else {
    all = pages.flatMap((p) => p.rows).sort(compareBy[order]);
    for (const { cutAt } of pages) {
      if (!cutAt) continue;
      cut = true;
      all = all.filter((doc) => compareBy[order](doc, cutAt) <= 0);
    }
  }
  return { rows: all.slice(0, limit), more: cut || all.length > limit };
}

/**
 * With a query: the platform's hybrid search over the readable sources on which the caller holds the
 * search grant (and only with the search:read scope), its best `maxSearchLimit` hits, then the rest
 * of the filter on the documents themselves, in the view's order.
 */
async function searched(ctx: OperationContext, view: ViewContent, readable: Source[]): Promise<{ items: Found[]; more: boolean }> {
  const { principal } = ctx.state;
  if (!principal.scopes.allows('search:read')) throw problems.insufficientScope('search:read (this view has a query)');
  const searchable = readable.filter((s) => grantsOf(s.container!, principal.subject).has('S'));
  if (searchable.length === 0) return { items: [], more: false };
  // The sources by kind; an empty list left out (searchBody wants none or some). One is never both empty: see above.
  const ofKind = (kind: ContainerKind) => {
    const list = searchable.filter((s) => s.kind === kind).map((s) => s.id);
    return list.length ? list : undefined;
  };
  const outcome = await runSearch(
    ctx,
    searchBody.parse({
      query: view.filter.query,
      limit: maxSearchLimit,
      workspace_ids: ofKind('workspace'),
      collection_ids: ofKind('collection'),
      content_types: view.filter.content_types,
    }),
  );
  const scores = new Map(outcome.results.map((r) => [r.id, r.score]));
  // The hits as stored now (the index may trail a write by a poll), checked against the whole filter.
  const keep = viewMatcher(view.filter, principal.scopes.typeLimits('artifact:read'));
  const within = new Set(searchable.map((s) => s.id));
  const docs = (await viewQueries(ctx.services).byIds([...scores.keys()])).filter((d) => within.has(d.collection_id) && keep(d));
  const order = view.sort;
  const ranked =
    order === 'relevance'
      ? docs.sort((a, b) => scores.get(b._id)! - scores.get(a._id)!)
      : order === 'position'
        ? docs.sort((a, b) => sourceIndex(readable, a) - sourceIndex(readable, b) || compareBy.position(a, b))
        : docs.sort(compareBy[order]);
  return { items: ranked.slice(0, view.limit).map((doc) => ({ doc, score: scores.get(doc._id)! })), more: ranked.length > view.limit };
}

const sourceIndex = (sources: Source[], doc: ArtifactDoc) => sources.findIndex((s) => s.id === doc.collection_id);
