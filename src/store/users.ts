import type { Db } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';

export interface UserDoc {
  _id: string;
  email: string;
  password_hash: string;
  is_admin: boolean;
  created_at: Date;
}

export class UserStore {
  constructor(private readonly db: Db) {}

  private get users() {
    return this.db.collection<UserDoc>('users');
  }

  findByEmail(email: string): Promise<UserDoc | null> {
    return this.users.findOne({ email: email.toLowerCase() });
  }

  findById(id: string): Promise<UserDoc | null> {
    return this.users.findOne({ _id: id });
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
