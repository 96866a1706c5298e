import type { Db } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';

export interface UserDoc {
  _id: string;
  email: string;
  password_hash: string;
  is_admin: boolean;
  created_at: Date;
}

/** How long a found person is kept (see UserStore.findById), and how many are. */
const personCacheMs = 10_000;
const personCacheSize = 10_000;

export class UserStore {
  private readonly found = new Map<string, { doc: UserDoc; until: number }>();

  constructor(private readonly db: Db) {}

  private get users() {
    return this.db.collection<UserDoc>('users');
  }

  findByEmail(email: string): Promise<UserDoc | null> {
    return this.users.findOne({ email: email.toLowerCase() });
  }

  /**
   * A person by id. Every authenticated request asks this (credentials.ts), so a found person is kept
   * for 10 s: people are never changed or deleted
   * through the platform (no route or workflow does), so only a change made in the database by hand
   * shows up to 10 s late (docs/decisions.md). A person not found is never kept: one made a moment
   * later (a sign-in racing another) is found at once.
   */
  async findById(id: string): Promise<UserDoc | null> {
    const kept = this.found.get(id);
    if (kept && kept.until > Date.now()) return kept.doc;
    // No sharing of a read in flight: one begun before a concurrent create would answer a caller that asks after it.
    const doc = await this.users.findOne({ _id: id });
    this.found.delete(id);
    if (doc) {
      if (this.found.size >= personCacheSize) this.found.delete(this.found.keys().next().value!);
      this.found.set(id, { doc, until: Date.now() + personCacheMs });
    }
    return doc;
  }

  /** `id`: chosen by the caller when something else already names the person (an external identity's link). */
  async create(email: string, passwordHash: string, isAdmin: boolean, id: string = uuidv7()): Promise<UserDoc> {
    const doc: UserDoc = {
      _id: id,
      email: email.toLowerCase(),
      password_hash: passwordHash,
      is_admin: isAdmin,
      created_at: new Date(),
    };
    await this.users.insertOne(doc);
    return doc;
  }

  async anyAdmin(): Promise<boolean> {
    return (await this.users.findOne({ is_admin: true }, { projection: { _id: 1 } })) !== null;
  }
}
