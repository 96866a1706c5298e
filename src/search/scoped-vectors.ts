import { insertTopK, type Ranked } from './rrf-fusion.js';
import { AnnBuild, AnnScheduler } from './ann-builds.js';
import { annFetch } from './ann-index.js';
import { VectorIndex, type Accept } from './vectors.js';

/** A scope holding at least this share of the small containers' vectors is searched through their shared HNSW index. */
const broadShare = 0.5;

/**
 * Vectors kept by container, so that a search reads only the containers its caller may search: its
 * cost follows the caller's scope, never the rest of the store. Each container is a `VectorIndex`,
 * exact, with an HNSW index of its own once it holds `annThreshold` vectors. The vectors of the
 * containers below that share one more HNSW index, which answers scopes holding most of them, where
 * filtering its neighbours leaves plenty; no vector is in two HNSW indexes.
 */
export class ScopedVectorIndex {
  private readonly containers = new Map<string, VectorIndex>();
  private readonly containerOf = new Map<string, string>();
  /** The HNSW index of the vectors of containers without one of their own. */
  private shared: AnnBuild | null = null;
  private bulk = false;
  /** Vectors the last search could read: neighbours fetched, and the containers scanned. */
  lastSearchCost = 0;

  constructor(
    readonly dimensions: number,
    private readonly annThreshold = 5000,
    private readonly builds = new AnnScheduler(),
  ) {}

  get size(): number {
    return this.containerOf.size;
  }

  /** Whether the small containers' shared HNSW index answers (past `annThreshold` of their vectors, and built). */
  get approximate(): boolean {
    return this.shared?.ready ?? false;
  }

  has(id: string): boolean {
    return this.containerOf.has(id);
  }

  /** Vectors held for one container. */
  sizeOf(containerId: string): number {
    return this.containers.get(containerId)?.size ?? 0;
  }

  /** A bulk load (a rebuild at start) defers every HNSW build to its end. */
  beginBulk(): void {
    this.bulk = true;
  }

  endBulk(): void {
    this.bulk = false;
    for (const index of this.containers.values()) index.endBulk();
    this.buildSharedIfDue();
  }

  upsert(id: string, containerId: string, vector: Float32Array): void {
    if (this.containerOf.get(id) !== containerId) this.remove(id); // moved to another container
    let index = this.containers.get(containerId);
    if (!index) {
      index = new VectorIndex(this.dimensions, this.annThreshold, this.builds);
      if (this.bulk) index.beginBulk();
      this.containers.set(containerId, index);
    }
    const small = !index.hasAnn;
    index.upsert(id, vector);
    this.containerOf.set(id, containerId);
    if (small && index.hasAnn)
      for (const moved of index.snapshot().ids) this.shared?.remove(moved); // it has its own now
    else if (small && this.shared) this.shared.upsert(id, vector);
    else if (small) this.buildSharedIfDue();
  }

  remove(id: string): void {
    const containerId = this.containerOf.get(id);
    if (containerId === undefined) return;
    const index = this.containers.get(containerId)!;
    index.remove(id);
    if (index.size === 0) this.containers.delete(containerId);
    this.containerOf.delete(id);
    this.shared?.remove(id);
  }

  /** A vector of a container without an HNSW index of its own: what the shared one holds. */
  private smallVector(id: string): Float32Array | undefined {
    const index = this.containers.get(this.containerOf.get(id) ?? '');
    return index && !index.hasAnn ? index.vectorOf(id) : undefined;
  }

  private buildSharedIfDue(): void {
    if (this.bulk || this.shared) return;
    const small = [...this.containers.values()].filter((index) => !index.hasAnn);
    if (small.reduce((sum, index) => sum + index.size, 0) < this.annThreshold) return;
    const ids = small.flatMap((index) => index.snapshot().ids);
    this.shared = new AnnBuild(this.dimensions, ids, (id) => this.smallVector(id));
    this.builds.schedule(this.shared);
  }

  /** The exact answer over every vector: the yardstick for the approximate one's recall. */
  exactSearch(query: Float32Array, k: number): Ranked[] {
    return merged(
      [...this.containers.values()].map((index) => index.exactSearch(query, k)),
      k,
    );
  }

  /**
   * The k most similar vectors in these containers that `accept` lets through (null: any of theirs).
   * Containers with an HNSW index of their own ask it; the small ones ask their shared index when
   * they are most of it (filtering its neighbours), and are scanned exactly otherwise, or when too
   * few of those neighbours are in scope. The answers are merged.
   */
  search(query: Float32Array, k: number, containerIds: ReadonlySet<string>, accept: Accept | null): Ranked[] {
    const lists: Ranked[][] = [];
    const small: VectorIndex[] = [];
    let smallSize = 0;
    this.lastSearchCost = 0;
    for (const id of containerIds) {
      const index = this.containers.get(id);
      if (!index) continue;
      if (index.hasAnn) {
        lists.push(index.search(query, k, accept));
        this.lastSearchCost += index.approximate ? Math.min(index.size, annFetch(k)) : index.size;
      } else {
        small.push(index);
        smallSize += index.size;
      }
    }
    const shared = this.shared?.ready ? this.sharedSearch(query, k, containerIds, accept, smallSize) : null;
    if (shared) lists.push(shared);
    else if (smallSize > 0) {
      for (const index of small) lists.push(index.search(query, k, accept));
      this.lastSearchCost += smallSize;
    }
    return merged(lists, k);
  }

  /** The shared index's neighbours in scope, when the scope holds most of its vectors and they are enough. */
  private sharedSearch(
    query: Float32Array,
    k: number,
    containerIds: ReadonlySet<string>,
    accept: Accept | null,
    smallSize: number,
  ): Ranked[] | null {
    const shared = this.shared!.ann;
    if (smallSize < broadShare * shared.size) return null;
    const fetch = Math.min(shared.size, annFetch(k));
    this.lastSearchCost += fetch;
    const hits = shared.search(query, fetch).filter((h) => containerIds.has(this.containerOf.get(h.id)!) && (!accept || accept(h.id)));
    return hits.length >= Math.min(k, smallSize) || fetch >= shared.size ? hits.slice(0, k) : null;
  }
}

function merged(lists: Ranked[][], k: number): Ranked[] {
  if (lists.length === 1) return lists[0]!;
  const top: Ranked[] = [];
  for (const list of lists)
    for (const hit of list) {
      if (top.length === k && hit.score <= top[k - 1]!.score) break; // each list is best first
      insertTopK(top, k, hit);
    }
  return top;
}
