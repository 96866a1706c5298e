import { createHash } from 'node:crypto';
import type { Logger } from '../kernel/logging/logger.js';
import type { McpSession } from './session.js';

interface Entry {
  session: Promise<McpSession>;
  lastUsed: number;
  active: number;
}

/** A pooled session is identified by the server and everything it was opened with. */
export function sessionKey(serverId: string, parts: unknown): string {
  return `${serverId}:${createHash('sha256').update(JSON.stringify(parts)).digest('hex')}`;
}

/**
 * A worker's sessions with external servers, reused across calls (one stdio process, or one HTTP
 * session, per server and configuration) and closed once idle. A changed registration or a rotated
 * secret gives a new key, so the old session is simply left to idle out.
 */
export class SessionPool {
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly idleMs: number,
    private readonly logger: Logger,
  ) {
    this.sweeper = setInterval(() => void this.sweep(), Math.min(idleMs, 30_000)).unref();
  }

  /**
   * Runs `fn` on the pooled session for `key`, opening one when there is none. `fn` may drop the
   * session it was given (after a failure): only that one, never a newer one under the same key.
   */
  async use<T>(
    key: string,
    open: () => Promise<McpSession>,
    fn: (session: McpSession, reused: boolean, drop: () => Promise<void>) => Promise<T>,
  ): Promise<T> {
    let entry = this.entries.get(key);
    const reused = entry !== undefined;
    if (!entry) {
      entry = { session: open(), lastUsed: Date.now(), active: 0 };
      this.entries.set(key, entry);
      const opened = entry;
      entry.session.then(
        (c) => (c.client.onclose = () => this.forget(key, opened)),
        () => this.forget(key, opened),
      );
    }
    entry.active += 1;
    try {
      const used = entry;
      return await fn(await entry.session, reused, () => this.drop(key, used));
    } finally {
      entry.active -= 1;
      entry.lastUsed = Date.now();
    }
  }

  /** Closes a session and forgets it, if it is still the one under its key. */
  private async drop(key: string, entry: Entry): Promise<void> {
    if (this.entries.get(key) !== entry) return;
    this.entries.delete(key);
    await entry.session.then((c) => c.close()).catch(() => {});
  }

  private forget(key: string, entry: Entry): void {
    if (this.entries.get(key) === entry) this.entries.delete(key);
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    for (const [key, entry] of this.entries) {
      if (entry.active === 0 && now - entry.lastUsed >= this.idleMs) {
        this.logger.debug({ server: key.split(':')[0] }, 'closing idle MCP session');
        await this.drop(key, entry);
      }
    }
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.entries].map(([key, entry]) => this.drop(key, entry)));
  }
}
