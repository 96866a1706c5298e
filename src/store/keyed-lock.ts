/**
 * Runs tasks with the same key one after another, in this process. MongoDB makes single-document
 * updates atomic; the embedded FerretDB v1 (SQLite) does not isolate concurrent updates of one
 * document (docs/decisions.md), so read-modify-write paths also serialise in process.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current = previous.catch(() => undefined).then(task);
    this.tails.set(key, current);
    try {
      return await current;
    } finally {
      if (this.tails.get(key) === current) this.tails.delete(key);
    }
  }
}
