import type { ViewResults } from '../presenters/views.js';
import { evaluateView, readableView, viewSources } from './views.js';
import type { OperationContext } from './services.js';

/**
 * Following a view's results as they change (GET /artifacts/{id}/results/stream). Each poll is cheap:
 * the view by id, each source as the caller sees it, and the newest event of each readable source
 * workspace (one indexed row each). Only when that mark moved (an artifact written in a source, the
 * view edited, a source's access changed), or `refreshMs` passed (collections record no events: a
 * commit into one is seen this way), are the results evaluated again; they are sent only when they
 * differ from the last ones sent. Events that arrive together are read as one change (debounced by
 * the poll), and at most one evaluation runs per poll.
 */
export class ViewWatch {
  private mark: string | null = null;
  private evaluatedAt = 0;
  private sentDigest: string | null;

  constructor(
    private readonly ctx: OperationContext,
    private readonly viewId: string,
    /** The digest the client already has (Last-Event-ID): not sent again. */
    knownDigest: string | undefined,
    private readonly refreshMs: number,
  ) {
    this.sentDigest = knownDigest ?? null;
  }

  /**
   * New results to send, or null when nothing the caller sees changed. Throws the problem a GET of the
   * results would answer (the view gone or unreadable: 404; no longer a valid view: 409).
   */
  async poll(): Promise<ViewResults | null> {
    const { ctx } = this;
    const { doc, view } = await readableView(ctx, this.viewId);
    const sources = await viewSources(ctx, view);
    const newest = await Promise.all(
      sources.map(async (s) => {
        if (!s.container) return `${s.id}:-`;
        if (s.kind !== 'workspace') return `${s.id}:c`;
        const page = await ctx.services.events.recent(s.id, 1);
        return `${s.id}:${page.items[0]?._id ?? ''}`;
      }),
    );
    const mark = `${doc.revision}|${newest.join('|')}`;
    if (mark === this.mark && Date.now() - this.evaluatedAt < this.refreshMs) return null;
    this.mark = mark;
    this.evaluatedAt = Date.now();
    const results = await evaluateView(ctx, doc, view, sources);
    if (results.digest === this.sentDigest) return null;
    this.sentDigest = results.digest;
    return results;
  }
}
