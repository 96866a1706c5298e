// Following a workspace's recorded events, for the live stream (GET /workspaces/{id}/events/stream).
// The store is read through one small interface, so the outbox of issue #21 can replace it.
import type { EventDoc, EventStore } from '../store/events.js';
import { uuidv7Floor, uuidv7Time } from '../store/search-changes.js';

/** What the tail reads: a workspace's events, most recent first, a page at a time (EventStore.recent). */
export interface EventSource {
  recent(workspaceId: string, limit: number, cursor?: string): Promise<{ items: EventDoc[]; next_cursor: string | null }>;
}

export const storeEventSource = (store: EventStore): EventSource => store;

/** The position before every event: a resume from it delivers the whole (bounded) history. */
export const beforeAllEvents = '00000000-0000-0000-0000-000000000000';

export interface TailOptions {
  /**
   * How far (ms of event-id time) below the newest delivered event the tail keeps looking for
   * events recorded late: an event's id is its write's time, and a write that signalled its event
   * after a later write did is recorded after it.
   */
  overlapMs: number;
  /** At most this many events read per poll; a reader further behind is told it overflowed. */
  maxScan: number;
}

export const defaultTailOptions: TailOptions = { overlapMs: 10_000, maxScan: 500 };

export interface TailBatch {
  /** New events, oldest first. */
  events: EventDoc[];
  /** More events were missed than one poll reads: they were skipped, the reader should reload. */
  overflowed: boolean;
}

const firstPage = 10;
const laterPage = 100;

/**
 * One reader's place in a workspace's events: everything after `after` (an event id), each event
 * once. Events recorded late (out of id order) are still delivered if they fall in the overlap
 * window above `after`; below it, a resume point is exclusive, so nothing is delivered twice.
 */
export class EventTail {
  /** Ids at or below it are never delivered: the resume point, raised to the overlap window's floor. */
  private floor: string;
  /** The newest id delivered. */
  private newest: string;
  /** Ids delivered above the floor. */
  private readonly seen = new Set<string>();

  constructor(
    private readonly source: EventSource,
    private readonly workspaceId: string,
    after: string,
    private readonly options: TailOptions = defaultTailOptions,
  ) {
    this.floor = after;
    this.newest = after;
  }

  /** The newest event delivered (or skipped to): where a resume would start. */
  get position(): string {
    return this.newest;
  }

  /** The newest event's id, or the position before all events: where a stream "from now" starts. */
  static async newestId(source: EventSource, workspaceId: string): Promise<string> {
    const page = await source.recent(workspaceId, 1);
    return page.items[0]?._id ?? beforeAllEvents;
  }

  /** Reads what was recorded since the last call. */
  async next(): Promise<TailBatch> {
    const found: EventDoc[] = [];
    let cursor: string | undefined;
    let read = 0;
    let reachedFloor = false;
    let newestRead: string | undefined;
    let oldestRead: string | undefined;
    while (read < this.options.maxScan) {
      const page = await this.source.recent(
        this.workspaceId,
        Math.min(cursor ? laterPage : firstPage, this.options.maxScan - read),
        cursor,
      );
      read += page.items.length;
      newestRead ??= page.items[0]?._id;
      for (const doc of page.items) {
        oldestRead = doc._id;
        if (doc._id <= this.floor) {
          reachedFloor = true;
          break;
        }
        if (!this.seen.has(doc._id)) found.push(doc);
      }
      if (reachedFloor || !page.next_cursor) {
        reachedFloor = true;
        break;
      }
      cursor = page.next_cursor;
    }
    // Not reaching the floor matters only if events newer than the last delivered one lie beyond
    // what was read; inside the overlap window, late events are looked for as far as one poll reads.
    const overflowed = !reachedFloor && oldestRead !== undefined && oldestRead > this.newest;
    if (overflowed) {
      this.skipTo(newestRead!);
      return { events: [], overflowed };
    }
    const events = found.reverse();
    if (events.length > 0) this.delivered(events.map((doc) => doc._id));
    return { events, overflowed: false };
  }

  private delivered(ids: string[]): void {
    for (const id of ids) {
      this.seen.add(id);
      if (id > this.newest) this.newest = id;
    }
    const windowFloor = uuidv7Floor(uuidv7Time(this.newest) - this.options.overlapMs);
    if (windowFloor <= this.floor) return;
    this.floor = windowFloor;
    for (const old of this.seen) if (old <= this.floor) this.seen.delete(old);
  }

  /** After an overflow: nothing older than the newest event is delivered any more. */
  private skipTo(id: string): void {
    this.seen.clear();
    this.floor = id;
    this.newest = id;
  }
}
