// What changed in a workspace or collection, read from the store: the API and the worker are separate
// processes and there may be several API replicas, so a change is learnt where every process writes
// it (a workspace's recorded events, a collection's committed commits), never from a process-local bus.
// One watch per container and replica, shared by every listen stream that follows it: the cost is a
// read per watched container per poll, whatever the number of streams or the size of everyone's data.
import { setTimeout as sleep } from 'node:timers/promises';
import { EventTail, storeEventSource } from '../../events/tail.js';
import { uuidv7Floor } from '../../store/search-changes.js';
import type { Services } from '../../operations/services.js';
import type { ContainerKind } from '../../store/containers.js';
import { commitsCollection } from '../../store/commits.js';
import { isStorageUnavailable, withDeadline } from '../../store/deadline.js';

export const watchTiming = {
  /** Between two reads of a workspace's events. */
  eventPollMs: 1000,
  /** Between two counts of a collection's commits (they wait for a person's approval anyway). */
  commitPollMs: 2000,
  /** Deadline of each store read. */
  storeDeadlineMs: 5000,
};

/** Reads what happened to one container since the last call: true when something did. */
type ChangeReader = () => Promise<boolean>;

/**
 * A workspace changes with each of its recorded events (artifact created, updated, archived or
 * restored, deleted). The tail starts at the watch's start: what was recorded before is not news.
 */
function workspaceChanges(services: Services, id: string): ChangeReader {
  const tail = new EventTail(storeEventSource(services.events), id, uuidv7Floor(Date.now()));
  return async () => {
    const batch = await tail.next();
    return batch.events.length > 0 || batch.overflowed;
  };
}

/**
 * A collection changes only through a commit (its artifacts are immutable otherwise): each commit
 * that reaches `committed`, a state it never leaves, adds one to the count. Counted on the commits'
 * `collection` index: the cost follows this collection's commits, no one else's.
 */
function collectionChanges(services: Services, id: string): ChangeReader {
  let known: number | undefined;
  return async () => {
    const count = await commitsCollection(services.db).countDocuments({ collection_id: id, state: 'committed' });
    const changed = known !== undefined && count !== known;
    known = count;
    return changed;
  };
}

class Watch {
  readonly followers = new Set<() => void>();
  private readonly stop = new AbortController();

  constructor(
    private readonly services: Services,
    private readonly kind: ContainerKind,
    private readonly id: string,
    private readonly onIdle: () => void,
  ) {}

  start(): void {
    void this.run().catch((err) => this.services.logger.error({ err, kind: this.kind, id: this.id }, 'listen watch failed'));
  }

  /** The last follower left: the loop ends at its next wait, holding nothing. */
  end(): void {
    this.stop.abort();
  }

  private async run(): Promise<void> {
    const read = this.kind === 'workspace' ? workspaceChanges(this.services, this.id) : collectionChanges(this.services, this.id);
    const pollMs = this.kind === 'workspace' ? watchTiming.eventPollMs : watchTiming.commitPollMs;
    try {
      while (!this.stop.signal.aborted) {
        if (await this.read(read)) for (const follower of [...this.followers]) follower();
        await sleep(pollMs, undefined, { signal: this.stop.signal }).catch(() => undefined);
      }
    } finally {
      this.onIdle();
    }
  }

  /** One read under its deadline; storage that does not answer is skipped (the next poll reads again). */
  private async read(read: ChangeReader): Promise<boolean> {
    try {
      return await withDeadline(`listen watch of ${this.kind}`, read(), watchTiming.storeDeadlineMs);
    } catch (err) {
      if (!isStorageUnavailable(err)) throw err;
      this.services.logger.warn({ err, kind: this.kind, id: this.id }, 'listen watch: storage unavailable, retrying');
      return false;
    }
  }
}

/** The containers this API instance watches for its listen streams. */
export class ContainerWatches {
  private readonly watches = new Map<string, Watch>();

  constructor(private readonly services: Services) {}

  /** Containers watched now (tests: none once every stream is gone). */
  get size(): number {
    return this.watches.size;
  }

  /** Calls `changed` after each change of the container until the returned function is called (idempotent). */
  follow(kind: ContainerKind, id: string, changed: () => void): () => void {
    const key = `${kind}:${id}`;
    let watch = this.watches.get(key);
    if (!watch) {
      const made: Watch = new Watch(this.services, kind, id, () => {
        if (this.watches.get(key) === made) this.watches.delete(key);
      });
      this.watches.set(key, (watch = made));
      made.start();
    }
    const mine = watch;
    const follower = () => changed();
    mine.followers.add(follower);
    return () => {
      if (!mine.followers.delete(follower) || mine.followers.size > 0) return;
      // Gone from the map now, so a new follower starts a fresh watch rather than join one that is ending.
      if (this.watches.get(key) === mine) this.watches.delete(key);
      mine.end();
    };
  }
}

const watchesByServices = new WeakMap<Services, ContainerWatches>();

export function containerWatches(services: Services): ContainerWatches {
  let watches = watchesByServices.get(services);
  if (!watches) watchesByServices.set(services, (watches = new ContainerWatches(services)));
  return watches;
}
