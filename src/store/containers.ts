import type { Db, Filter } from 'mongodb';
import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';
import { grantsOf, type GrantFlag, type Share } from '../auth/grants.js';
import type { Principal } from '../auth/principal.js';
import { KeyedLock } from './keyed-lock.js';
import { isDuplicateKey } from './mongo.js';
import { decodeCursor, encodeCursor, type Page } from './pagination.js';

/** Namespace for the deterministic id of each person's default workspace. */
const defaultWorkspaceNamespace = '6f1c0d2e-5b7a-4e8f-9c3d-2a1b0e9f8d7c';

export type ContainerKind = 'workspace' | 'collection';

/** A workspace (draft staging area) or a collection (versioned store): same record shape. */
export interface ContainerDoc {
  _id: string;
  kind: ContainerKind;
  name: string;
  description: string;
  metadata: Record<string, unknown>;
  owner_id: string;
  shares: Share[];
  /** Everyone who may see the container besides its owner (derived from shares, for queries). */
  readers: string[];
  /** Bumped on every change of the shares: the compare-and-set token of concurrent edits. */
  shares_version?: number;
  /** Highest artifact order key handed out here: appends read it instead of sorting the artifacts. */
  last_order_key: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ContainerInput {
  name: string;
  description?: string;
  metadata?: Record<string, unknown>;
}

const collectionNames: Record<ContainerKind, string> = { workspace: 'workspaces', collection: 'collections' };

export function containerCollection(db: Db, kind: ContainerKind) {
  return db.collection<ContainerDoc>(collectionNames[kind]);
}

/** Every read is filtered by what the principal may see: what they own. */
export class ContainerStore {
  private readonly shareLock = new KeyedLock();

  constructor(private readonly db: Db) {}

  private coll(kind: ContainerKind) {
    return containerCollection(this.db, kind);
  }

  /**
   * What the principal may see: containers its person owns or was granted, narrowed by the
   * credential's resource filters. Every read goes through this.
   */
  private visible(kind: ContainerKind, principal: Principal): Filter<ContainerDoc> {
    const filter = principal.filters[collectionNames[kind] as 'workspaces' | 'collections'];
    const mine: Filter<ContainerDoc> = { $or: [{ owner_id: principal.subject }, { readers: principal.subject }] };
    return filter === '*' ? mine : { $and: [mine, { _id: { $in: filter } }] };
  }

  async create(kind: ContainerKind, principal: Principal, input: ContainerInput, id = uuidv7()): Promise<ContainerDoc> {
    const now = new Date();
    const doc: ContainerDoc = {
      _id: id,
      kind,
      name: input.name,
      description: input.description ?? '',
      metadata: input.metadata ?? {},
      owner_id: principal.subject,
      shares: [],
      readers: [],
      last_order_key: null,
      created_at: now,
      updated_at: now,
    };
    await this.coll(kind).insertOne(doc);
    return doc;
  }

  /**
   * The workspace an artifact lands in when no collection_id is given. Its id is derived from the
   * person, so concurrent first uses create it once.
   */
  async defaultWorkspace(principal: Principal): Promise<ContainerDoc> {
    const id = uuidv5(principal.subject, defaultWorkspaceNamespace);
    const existing = await this.get('workspace', principal, id);
    if (existing) return existing;
    try {
      return await this.create('workspace', principal, { name: 'My workspace', metadata: { default: true } }, id);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return (await this.get('workspace', principal, id))!;
    }
  }

  get(kind: ContainerKind, principal: Principal, id: string): Promise<ContainerDoc | null> {
    return this.coll(kind).findOne({ $and: [{ _id: id }, this.visible(kind, principal)] });
  }

  /** Finds a visible workspace or collection by id: artifacts name their container by id alone. */
  async find(principal: Principal, id: string): Promise<ContainerDoc | null> {
    return (await this.get('workspace', principal, id)) ?? (await this.get('collection', principal, id));
  }

  async list(kind: ContainerKind, principal: Principal, limit: number, cursor?: string): Promise<Page<ContainerDoc>> {
    const filter: Filter<ContainerDoc>[] = [this.visible(kind, principal)];
    if (cursor) filter.push({ _id: { $gt: decodeCursor(cursor, 1)[0]! } });
    const docs = await this.coll(kind).find({ $and: filter }).sort({ _id: 1 }).limit(limit + 1).toArray();
    const items = docs.slice(0, limit);
    return { items, next_cursor: docs.length > limit ? encodeCursor([items.at(-1)!._id]) : null };
  }

  /** Callers have checked the principal's U grant on a container it can see. */
  async update(kind: ContainerKind, id: string, patch: Partial<ContainerInput>): Promise<ContainerDoc | null> {
    return this.coll(kind).findOneAndUpdate({ _id: id }, { $set: { ...patch, updated_at: new Date() } }, { returnDocument: 'after' });
  }

  /** Grants `flags` to a person, replacing what they had. */
  share(kind: ContainerKind, id: string, share: Share): Promise<ContainerDoc | null> {
    return this.changeShares(kind, id, (shares) => [...shares.filter((s) => s.person_id !== share.person_id), share]);
  }

  unshare(kind: ContainerKind, id: string, personId: string): Promise<ContainerDoc | null> {
    return this.changeShares(kind, id, (shares) => shares.filter((s) => s.person_id !== personId));
  }

  /**
   * Read, change, write back only if nobody changed the shares meanwhile (compare-and-set on
   * `shares_version`), else start over: two concurrent edits never undo each other, so a revoked
   * grant cannot come back.
   */
  private changeShares(kind: ContainerKind, id: string, change: (shares: Share[]) => Share[]): Promise<ContainerDoc | null> {
    return this.shareLock.run(`${kind}:${id}`, () => this.compareAndSetShares(kind, id, change));
  }

  private async compareAndSetShares(kind: ContainerKind, id: string, change: (shares: Share[]) => Share[]): Promise<ContainerDoc | null> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const doc = await this.coll(kind).findOne({ _id: id });
      if (!doc) return null;
      const shares = change(doc.shares);
      const version = doc.shares_version ?? 0;
      const updated = await this.coll(kind).findOneAndUpdate(
        { _id: id, ...(version === 0 ? { $or: [{ shares_version: 0 }, { shares_version: { $exists: false } }] } : { shares_version: version }) },
        { $set: { shares, readers: shares.map((s) => s.person_id), shares_version: version + 1, updated_at: new Date() } },
        { returnDocument: 'after' },
      );
      if (updated) return updated;
    }
    throw new Error(`shares of ${kind} ${id} kept changing under us`);
  }

  /** Ids of the containers whose artifacts the principal may find in search: visible, with the S grant. */
  async searchableIds(principal: Principal): Promise<string[]> {
    const ids = await Promise.all((['workspace', 'collection'] as const).map((kind) => this.grantedIds(kind, principal, 'S')));
    return ids.flat();
  }

  /** Ids of the visible containers of a kind on which the principal's person holds `flag`. */
  async grantedIds(kind: ContainerKind, principal: Principal, flag: GrantFlag): Promise<string[]> {
    const docs = await this.coll(kind).find(this.visible(kind, principal), { projection: { _id: 1, owner_id: 1, shares: 1 } }).toArray();
    return docs.filter((d) => grantsOf(d, principal.subject).has(flag)).map((d) => d._id);
  }

  /** Ids of every container of a kind the principal can see: store queries on artifacts filter by these. */
  async visibleIds(kind: ContainerKind, principal: Principal): Promise<string[]> {
    const docs = await this.coll(kind).find(this.visible(kind, principal), { projection: { _id: 1 } }).toArray();
    return docs.map((d) => d._id);
  }
}
