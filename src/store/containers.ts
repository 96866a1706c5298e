import type { Db, Filter } from 'mongodb';
import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';
import { grantsOf, type GrantFlag, type Share } from '../identity/grants.js';
import type { Principal } from '../identity/principal.js';
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
  /** The latest change of the shares: its claim is in `container_share_versions` (see settleShares). */
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

/**
 * One change of a container's shares, claimed by a unique insert (`_id` `<kind>:<id>:<version>`):
 * exactly one writer owns each version, and the claim holds the shares it leaves, so the container
 * document can always be brought to them again.
 */
interface ShareVersionDoc {
  _id: string;
  container_id: string;
  kind: ContainerKind;
  version: number;
  shares: Share[];
  claimed_at: Date;
}

const shareVersionId = (kind: ContainerKind, id: string, version: number) => `${kind}:${id}:${version}`;

function shareVersions(db: Db) {
  return db.collection<ShareVersionDoc>('container_share_versions');
}

/**
 * The container with the shares of its latest claimed change. The engine does not isolate updates of
 * one document: any write of a container (a rename, a new last order key) may put back the shares it
 * read, a revoked grant among them. So every writer of a container document settles after its write,
 * and a change whose writer died before writing is finished here too.
 */
export async function settleShares(db: Db, kind: ContainerKind, id: string, known?: ContainerDoc | null): Promise<ContainerDoc | null> {
  const coll = db.collection<ContainerDoc>(collectionNames[kind]);
  let doc = known === undefined ? await coll.findOne({ _id: id }) : known;
  for (let round = 0; doc && round < 1000; round++) {
    const next = await shareVersions(db).findOne({ _id: shareVersionId(kind, id, (doc.shares_version ?? 0) + 1) });
    if (!next) return doc;
    await coll.updateOne(
      { _id: id, $or: [{ shares_version: { $lt: next.version } }, { shares_version: { $exists: false } }] },
      {
        $set: {
          shares: next.shares,
          readers: next.shares.map((s) => s.person_id),
          shares_version: next.version,
          updated_at: next.claimed_at,
        },
      },
    );
    doc = await coll.findOne({ _id: id });
  }
  if (doc) throw new Error(`shares of ${kind} ${id} are still behind their claimed changes`);
  return null;
}

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
  /** The containers a principal sees, as a query (`get()` applies the same rule to one document). */
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

  /**
   * A visible container by id: read by `_id` alone (the primary key on every engine; FerretDB does not
   * take it from inside an `$and`), then held to the same rule as `visible()`.
   */
  async get(kind: ContainerKind, principal: Principal, id: string): Promise<ContainerDoc | null> {
    const doc = await this.coll(kind).findOne({ _id: id });
    if (!doc) return null;
    const filter = principal.filters[collectionNames[kind] as 'workspaces' | 'collections'];
    if (filter !== '*' && !filter.includes(doc._id)) return null;
    return doc.owner_id === principal.subject || (doc.readers ?? []).includes(principal.subject) ? doc : null;
  }

  /** Finds a visible workspace or collection by id: artifacts name their container by id alone. */
  async find(principal: Principal, id: string): Promise<ContainerDoc | null> {
    return (await this.get('workspace', principal, id)) ?? (await this.get('collection', principal, id));
  }

  async list(kind: ContainerKind, principal: Principal, limit: number, cursor?: string): Promise<Page<ContainerDoc>> {
    const filter: Filter<ContainerDoc>[] = [this.visible(kind, principal)];
    if (cursor) filter.push({ _id: { $gt: decodeCursor(cursor, 1)[0]! } });
    const docs = await this.coll(kind)
      .find({ $and: filter })
      .sort({ _id: 1 })
      .limit(limit + 1)
      .toArray();
    const items = docs.slice(0, limit);
    return { items, next_cursor: docs.length > limit ? encodeCursor([items.at(-1)!._id]) : null };
  }

  /** Callers have checked the principal's U grant on a container it can see. */
  async update(kind: ContainerKind, id: string, patch: Partial<ContainerInput>): Promise<ContainerDoc | null> {
    const doc = await this.coll(kind).findOneAndUpdate(
      { _id: id },
      { $set: { ...patch, updated_at: new Date() } },
      { returnDocument: 'after' },
    );
    // The engine may have written back the shares this update read over a racing change of them.
    return doc && settleShares(this.db, kind, id);
  }

  /**
   * Grants `flags` to a person, replacing what they had. `allowed` is asked (and may throw) on the
   * shares each attempt changes, so a rule about who may change whose grant holds against racing changes.
   */
  share(kind: ContainerKind, id: string, share: Share, allowed?: (doc: ContainerDoc) => void): Promise<ContainerDoc | null> {
    return this.changeShares(kind, id, (shares) => [...shares.filter((s) => s.person_id !== share.person_id), share], allowed);
  }

  unshare(kind: ContainerKind, id: string, personId: string, allowed?: (doc: ContainerDoc) => void): Promise<ContainerDoc | null> {
    return this.changeShares(kind, id, (shares) => shares.filter((s) => s.person_id !== personId), allowed);
  }

  /**
   * Every change of the shares claims the next `shares_version` by a unique insert and is made on the
   * shares the previous change left, so two concurrent edits, in any processes, never undo each other
   * and a revoked grant cannot come back (see settleShares). Serialised in process, so that its own
   * changes do not compete for a claim.
   */
  private changeShares(
    kind: ContainerKind,
    id: string,
    change: (shares: Share[]) => Share[],
    allowed?: (doc: ContainerDoc) => void,
  ): Promise<ContainerDoc | null> {
    return this.shareLock.run(`${kind}:${id}`, async () => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const doc = await settleShares(this.db, kind, id);
        if (!doc) return null;
        allowed?.(doc);
        const shares = change(doc.shares);
        const version = (doc.shares_version ?? 0) + 1;
        const claimedAt = new Date();
        try {
          await shareVersions(this.db).insertOne({
            _id: shareVersionId(kind, id, version),
            container_id: id,
            kind,
            version,
            shares,
            claimed_at: claimedAt,
          });
        } catch (err) {
          if (isDuplicateKey(err)) continue;
          throw err;
        }
        await settleShares(this.db, kind, id, doc);
        return { ...doc, shares, readers: shares.map((s) => s.person_id), shares_version: version, updated_at: claimedAt };
      }
      throw new Error(`shares of ${kind} ${id} kept changing under us`);
    });
  }

  /** Ids of the containers whose artifacts the principal may find in search: visible, with the S grant. */
  async searchableIds(principal: Principal): Promise<string[]> {
    const ids = await Promise.all((['workspace', 'collection'] as const).map((kind) => this.grantedIds(kind, principal, 'S')));
    return ids.flat();
  }

  /** Ids of the visible containers of a kind on which the principal's person holds `flag`. */
  async grantedIds(kind: ContainerKind, principal: Principal, flag: GrantFlag): Promise<string[]> {
    const docs = await this.coll(kind)
      .find(this.visible(kind, principal), { projection: { _id: 1, owner_id: 1, shares: 1 } })
      .toArray();
    return docs.filter((d) => grantsOf(d, principal.subject).has(flag)).map((d) => d._id);
  }

  /**
   * The people the principal works with: owners and readers of every container it can see (the
   * console names them, issue #37). Its own person is among them.
   */
  async peopleSharedWith(principal: Principal): Promise<Set<string>> {
    const people = new Set([principal.subject]);
    for (const kind of ['workspace', 'collection'] as const) {
      const docs = await this.coll(kind)
        .find(this.visible(kind, principal), { projection: { owner_id: 1, readers: 1 } })
        .toArray();
      for (const d of docs) for (const id of [d.owner_id, ...(d.readers ?? [])]) people.add(id);
    }
    return people;
  }

  /** Ids of every container of a kind the principal can see: store queries on artifacts filter by these. */
  async visibleIds(kind: ContainerKind, principal: Principal): Promise<string[]> {
    const docs = await this.coll(kind)
      .find(this.visible(kind, principal), { projection: { _id: 1 } })
      .toArray();
    return docs.map((d) => d._id);
  }
}
