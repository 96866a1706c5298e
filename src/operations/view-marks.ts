import { withDeadline } from '../store/deadline.js';
import type { Services } from './services.js';

/**
 * The newest event id of a workspace, read at most once per `maxAgeMs` by this process however many
 * view streams follow that workspace (issue #36): 500 streams on one workspace cost one indexed row a
 * second, not 500. A read is shared while it runs (single flight); one that fails or passes its
 * deadline is dropped, so the next poll reads again.
 */
export class NewestEvents {
  private readonly cache = new Map<string, { at: number; id: Promise<string> }>();

  constructor(
    private readonly read: (workspaceId: string) => Promise<string>,
    private readonly maxAgeMs: number,
    private readonly deadlineMs: number,
  ) {}

  /** Reads done so far (a test counts them). */
  reads = 0;

  get(workspaceId: string): Promise<string> {
    const now = Date.now();
    const held = this.cache.get(workspaceId);
    if (held && now - held.at < this.maxAgeMs) return held.id;
    if (this.cache.size > 10_000) this.sweep(now);
    this.reads++;
    const id = withDeadline('newest event of a workspace', this.read(workspaceId), this.deadlineMs);
    const entry = { at: now, id };
    this.cache.set(workspaceId, entry);
    id.catch(() => {
      if (this.cache.get(workspaceId) === entry) this.cache.delete(workspaceId);
    });
    return id;
  }

  /** Entries no stream asked for lately: the map holds what is followed now, never every workspace ever followed. */
  private sweep(now: number): void {
    for (const [key, entry] of this.cache) if (now - entry.at >= this.maxAgeMs) this.cache.delete(key);
  }
}

const byServices = new WeakMap<Services, NewestEvents>();

/** The one NewestEvents of the API built on these services. */
export function newestEvents(services: Services, maxAgeMs: number, deadlineMs: number): NewestEvents {
  let marks = byServices.get(services);
  if (!marks) {
    marks = new NewestEvents(async (id) => (await services.events.recent(id, 1)).items[0]?._id ?? '', maxAgeMs, deadlineMs);
    byServices.set(services, marks);
  }
  return marks;
}
