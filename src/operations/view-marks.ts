import type { ContainerKind } from '../store/containers.js';
import { withDeadline } from '../store/deadline.js';
import type { Services } from './services.js';
import { viewQueries } from './views.js';

/**
 * What moves when a container's content changes, read at most once per `maxAgeMs` by this process
 * however many view streams follow that container (issue #36): 500 streams on one workspace cost one
 * indexed row a second, not 500. A workspace's mark is its newest event id; a collection's (which
 * records no events) its most recently updated artifact. A read is shared while it runs (single
 * flight); one that fails or passes its deadline is dropped, so the next poll reads again.
 */
export class ContainerMarks {
  private readonly cache = new Map<string, { at: number; mark: Promise<string> }>();
  /** Reads done so far. */
  reads = 0;

  constructor(
    private readonly read: (kind: ContainerKind, id: string) => Promise<string>,
    private readonly maxAgeMs: number,
    private readonly deadlineMs: number,
  ) {}

  get(kind: ContainerKind, id: string): Promise<string> {
    const key = `${kind}:${id}`;
    const now = Date.now();
    const held = this.cache.get(key);
    if (held && now - held.at < this.maxAgeMs) return held.mark;
    if (this.cache.size > 10_000) this.sweep(now);
    this.reads++;
    const mark = withDeadline(`the newest change of a ${kind}`, this.read(kind, id), this.deadlineMs);
    const entry = { at: now, mark };
    this.cache.set(key, entry);
    mark.catch(() => {
      if (this.cache.get(key) === entry) this.cache.delete(key);
    });
    return mark;
  }

  /** Entries no stream asked for lately: the map holds what is followed now, never every container ever followed. */
  private sweep(now: number): void {
    for (const [key, entry] of this.cache) if (now - entry.at >= this.maxAgeMs) this.cache.delete(key);
  }
}

const byServices = new WeakMap<Services, ContainerMarks>();

/** The one ContainerMarks of the API built on these services. */
export function containerMarks(services: Services, maxAgeMs: number, deadlineMs: number): ContainerMarks {
  let marks = byServices.get(services);
  if (!marks) {
    const read = async (kind: ContainerKind, id: string) =>
      kind === 'workspace' ? ((await services.events.recent(id, 1)).items[0]?._id ?? '') : viewQueries(services).newestIn(id);
    byServices.set(services, (marks = new ContainerMarks(read, maxAgeMs, deadlineMs)));
  }
  return marks;
}
