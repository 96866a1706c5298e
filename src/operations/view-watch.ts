import type { ViewContent } from '../artifacts/content-types/view.js';
import type { ViewResults } from '../presenters/views.js';
import type { ArtifactDoc } from '../store/artifact-doc.js';
import { containerMarks } from './view-marks.js';
import { evaluateView, readableView, viewSources, type Source } from './views.js';
import type { OperationContext } from './services.js';

export interface WatchTiming {
  /** Between two polls: events within one poll are one change. */
  pollMs: number;
  /** The view and its sources are looked up as the caller again at least this often (access lost, a source renamed). */
  lookMs: number;
  /** With a query, results are evaluated again this often for `settleMs` after a change (search indexing trails writes). */
  refreshMs: number;
  settleMs: number;
  /** …and at least this often otherwise (a safety net for a change no mark shows: a collection artifact deleted). */
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
 * stream no store read while nothing moves: it compares the marks of the containers it follows (the
 * view's own and its readable sources: a workspace's newest event, a collection's most recently
 * updated artifact), which one read per container per poll answers for every stream of this process
 * (ContainerMarks). When a mark moved, and every `lookMs` (access may have been withdrawn, which
 * moves no mark), the view and its sources are looked up as the caller again; the results are
 * evaluated when that look or a mark changed, or a refresh is due, and sent only when they differ
 * from the last ones sent.
 */
export class ViewWatch {
  private look: Look | null = null;
  private lookedAt = 0;
  private mark: string | null = null;
  private evaluatedAt = 0;
  private changedAt = 0;
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
    const now = Date.now();
    if (mark !== this.mark) this.changedAt = now;
    const settling = look.view.filter.query && now - this.changedAt < timing.settleMs;
    if (mark === this.mark && now - this.evaluatedAt < (settling ? timing.refreshMs : timing.idleRefreshMs)) return null;
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

  /** What the look saw (the view's revision, each source's visibility and name) and the mark of each followed container. */
  private async markOf({ doc, sources }: Look): Promise<string> {
    const marks = containerMarks(this.ctx.services, this.timing.pollMs - 50, this.timing.deadlineMs);
    const followed = new Map(sources.filter((s) => s.container).map((s) => [s.id, s.kind]));
    followed.set(doc.collection_id, doc.container_kind);
    const moved = await Promise.all([...followed].map(async ([id, kind]) => `${id}:${await marks.get(kind, id)}`));
    const seen = sources.map((s) => `${s.id}:${s.container ? s.container.name : '-'}`);
    return `${doc.revision}|${seen.join('|')}|${moved.join('|')}`;
  }
}
