// How many live event streams a replica holds open at once: each is a connection and a poll loop.

export interface StreamCaps {
  /** Open streams per person (a console in several tabs, a few tools). */
  perPerson: number;
  /** Open streams on this replica, everyone together. */
  total: number;
}

export const defaultStreamCaps: StreamCaps = { perPerson: 8, total: 500 };

/** The open streams of one API instance, counted per person; each stream can be stopped from here. */
export class StreamSlots {
  private readonly byPerson = new Map<string, number>();
  private readonly open = new Set<AbortController>();

  constructor(private readonly caps: StreamCaps = defaultStreamCaps) {}

  get size(): number {
    return this.open.size;
  }

  /** A slot for the person, or which cap is reached. `release` is idempotent. */
  acquire(person: string): { release: () => void; signal: AbortSignal } | { full: 'person' | 'total' } {
    if (this.open.size >= this.caps.total) return { full: 'total' };
    const held = this.byPerson.get(person) ?? 0;
    if (held >= this.caps.perPerson) return { full: 'person' };
    this.byPerson.set(person, held + 1);
    const controller = new AbortController();
    this.open.add(controller);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.open.delete(controller);
      const left = (this.byPerson.get(person) ?? 1) - 1;
      if (left > 0) this.byPerson.set(person, left);
      else this.byPerson.delete(person);
    };
    return { release, signal: controller.signal };
  }

  /** Ends every open stream (server shutdown). */
  stopAll(): void {
    for (const controller of this.open) controller.abort();
  }
}
