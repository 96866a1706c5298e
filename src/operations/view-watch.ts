import type { ViewContent } from '../artifacts/content-types/view.js';
import type { ViewResults } from '../presenters/views.js';
import type { ArtifactDoc } from '../store/artifact-doc.js';
import { newestEvents } from './view-marks.js';
import { evaluateView, readableView, viewSources, type Source } from './views.js';
import type { OperationContext } from './services.js';

export interface WatchTiming {
  /** Between two polls: events within one poll are one change. */
  pollMs: number;
  /** The view and its sources are looked up as the caller again at least this often (access lost, a source renamed). */
  lookMs: number;
  /** Results are evaluated again at least this often when events cannot tell (a collection source, a query: search trails writes). */
  refreshMs: number;
  /** …and at least this often otherwise (a safety net: every write to a workspace records an event). */
  idleRefreshMs: number;
  /** Deadline of one store read. */
  deadlineMs: number;
}

interface Look {
  doc: ArtifactDoc;
  view: ViewContent;
  sources: Source[];
}

/**
 * Following a view's results as they change (GET /artifacts/{id}/results/stream). A poll costs this
 * stream no store read at all while nothing moves: it compares the newest event id of each workspace
 * it follows (the view's own and its readable source workspaces), which one read per workspace per
 * poll answers for every stream of this process (NewestEvents). When a mark moved, every `lookMs`
 * (access may have been withdrawn, which records no event), the view and its sources are looked up as
 * the caller again; the results are evaluated when that look or a mark changed, or a refresh is due
 * (collections record no events; search indexing trails), and sent only when they differ from the
 * last ones sent.
 */
export class ViewWatch {
  private look: Look | null = null;
  private lookedAt = 0;
  private mark: string | null = null;
  private evaluatedAt = 0;
  private sentDigest: string | null;

  constructor(
    private readonly ctx: OperationContext,
    private readonly viewId: string,
    /** The digest the client already has (Last-Event-ID): not sent again. */
    knownDigest: string | undefined,
    private readonly timing: WatchTiming,
  ) {
    this.sentDigest = knownDigest ?? null;
  }

  /** Forget the last look: the next poll looks the view and its sources up again (the credentials were re-read). */
  invalidate(): void {
    this.look = null;
  }

  /**
   * New results to send, or null when nothing the caller sees changed. Throws the problem a GET of the
   * results would answer (the view gone or unreadable: 404; no longer a valid view: 409).
   */
  async poll(): Promise<ViewResults | null> {
    const { timing } = this;
    let look = this.look;
    let mark = look && Date.now() - this.lookedAt < timing.lookMs ? await this.markOf(look) : null;
    if (!look || mark !== this.mark) {
      look = await this.lookUp();
      mark = await this.markOf(look);
    }
    const refreshEvery =
      look.view.filter.query || look.sources.some((s) => s.kind === 'collection') ? timing.refreshMs : timing.idleRefreshMs;
    if (mark === this.mark && Date.now() - this.evaluatedAt < refreshEvery) return null;
    this.mark = mark;
    this.evaluatedAt = Date.now();
    const results = await evaluateView(this.ctx, look.doc, look.view, look.sources);
    if (results.digest === this.sentDigest) return null;
    this.sentDigest = results.digest;
    return results;
  }

  private async lookUp(): Promise<Look> {
    const { doc, view } = await readableView(this.ctx, this.viewId);
    const sources = await viewSources(this.ctx, view);
    this.look = { doc, view, sources };
    this.lookedAt = Date.now();
    return this.look;
  }

  /** What the look saw (the view's revision, each source's visibility and name) and the newest event of each followed workspace. */
  private async markOf({ doc, sources }: Look): Promise<string> {
    const events = newestEvents(this.ctx.services, this.timing.pollMs - 50, this.timing.deadlineMs);
    const followed = sources.filter((s) => s.container && s.kind === 'workspace').map((s) => s.id);
    if (doc.container_kind === 'workspace') followed.push(doc.collection_id);
    const newest = await Promise.all([...new Set(followed)].map(async (id) => `${id}:${await events.get(id)}`));
    const seen = sources.map((s) => `${s.id}:${s.container ? s.container.name : '-'}`);
    return `${doc.revision}|${seen.join('|')}|${newest.join('|')}`;
  }
}
