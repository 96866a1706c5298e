import { limitProblems } from '../kernel/errors/limits.js';
import type { Logger } from '../kernel/logging/logger.js';
import type { AuditStore } from '../store/audit.js';
import type { SignInEventDoc, SignInEventStore } from '../store/sign-in-events.js';
import { sha256 } from '../kernel/crypto/opaque.js';

export interface SignInPolicy {
  /** From this many failures on, each next try waits 1, 2, 4, ... seconds after the last failure. */
  delayAfter: number;
  /** This many failures within `lockoutSeconds` lock sign-in for `lockoutSeconds`; 0 turns throttling off. */
  lockAfter: number;
  lockoutSeconds: number;
}

export type SignInVerdict = { allowed: true } | { allowed: false; locked: boolean; retryAfter: number };

/** The failures that count: those after the newest reset, within one lockout period of the newest failure. */
export function countedFailures(events: SignInEventDoc[], policy: SignInPolicy): Date[] {
  const failures: Date[] = [];
  for (const event of events) {
    if (event.kind === 'reset') break;
    if (failures.length > 0 && failures[0]!.getTime() - event.at.getTime() >= policy.lockoutSeconds * 1000) break;
    failures.push(event.at);
  }
  return failures;
}

/** Whether a sign-in may be tried now, after these failures (newest first). */
export function verdict(failures: Date[], now: number, policy: SignInPolicy): SignInVerdict {
  const n = failures.length;
  if (n === 0 || n < policy.delayAfter) return { allowed: true };
  const locked = n >= policy.lockAfter;
  const wait = locked ? policy.lockoutSeconds : Math.min(2 ** (n - policy.delayAfter), policy.lockoutSeconds);
  const until = failures[0]!.getTime() + wait * 1000;
  return now >= until ? { allowed: true } : { allowed: false, locked, retryAfter: Math.max(1, Math.ceil((until - now) / 1000)) };
}

export interface SignInAttempt {
  email: string;
  ip: string;
  requestId: string;
}

/** What the password check found: whether it passed, and whose account the e-mail is (null: none). */
export interface SignInCheck {
  ok: boolean;
  personId: string | null;
}

const sweepEveryMs = 60_000;

/**
 * Per-account brute-force protection that holds across API replicas: every failure is an inserted
 * document and the verdict is a count of them, so no replica's write can be lost. Unknown e-mails
 * are counted and locked exactly like known ones, so a lockout tells nothing about who has an account.
 */
export class SignInThrottle {
  private swept = 0;

  constructor(
    private readonly events: SignInEventStore,
    private readonly audit: AuditStore,
    private readonly policy: SignInPolicy,
    private readonly logger: Logger,
  ) {}

  private get enabled(): boolean {
    return this.policy.lockAfter > 0;
  }

  /**
   * Runs one password check under the account's throttle. Refused tries (429 sign-in-throttled or
   * account-locked) check no password and leave nothing behind, so they neither extend a lockout nor
   * cost scrypt work. A try is recorded as a failure before its password is checked, then counted
   * again with every other try visible: of two simultaneous tries at least one sees the other, so of
   * a burst spread over replicas fewer than 2 × delayAfter get their password checked.
   */
  async check(attempt: SignInAttempt, verify: () => Promise<SignInCheck>): Promise<SignInCheck> {
    if (!this.enabled) return verify();
    const account = accountKey(attempt.email);
    this.sweepSometimes();
    this.refuseUnlessAllowed(countedFailures(await this.recent(account), this.policy));
    const mine = await this.events.record({ account, kind: 'failure', ip: attempt.ip });
    let prior: Date[];
    let result: SignInCheck;
    try {
      prior = countedFailures(await this.recent(account, mine._id), this.policy);
      this.refuseUnlessAllowed(prior);
      result = await verify();
    } catch (err) {
      await this.events.remove(mine._id).catch((e) => this.logger.error({ err: e }, 'provisional sign-in failure not removed'));
      throw err;
    }
    if (result.ok) {
      await this.events.remove(mine._id);
      if (prior.length > 0) await this.events.record({ account, kind: 'reset', reason: 'success' });
      return result;
    }
    const base = { email: attempt.email.toLowerCase(), person_id: result.personId, ip: attempt.ip, request_id: attempt.requestId };
    await this.auditEntry({ ...base, event: 'sign_in_failed' });
    if (prior.length + 1 === this.policy.lockAfter) {
      this.logger.warn(
        { request_id: attempt.requestId, person_id: result.personId, ip: attempt.ip },
        'sign-in locked after repeated failures',
      );
      await this.auditEntry({ ...base, event: 'account_locked' });
    }
    return result;
  }

  /** An administrator's unlock: the failures so far stop counting. */
  async unlock(email: string, by: string, requestId: string, personId: string): Promise<void> {
    await this.events.record({ account: accountKey(email), kind: 'reset', reason: 'unlock', by });
    await this.auditEntry({ event: 'account_unlocked', email: email.toLowerCase(), person_id: personId, by, request_id: requestId });
  }

  private recent(account: string, except?: string): Promise<SignInEventDoc[]> {
    // Twice the lockout back: a lock may rest on failures up to one lockout period before its last.
    const since = new Date(Date.now() - 2 * this.policy.lockoutSeconds * 1000);
    return this.events.recent(account, since, this.policy.lockAfter, except);
  }

  private refuseUnlessAllowed(failures: Date[]): void {
    const v = verdict(failures, Date.now(), this.policy);
    if (!v.allowed) throw v.locked ? limitProblems.accountLocked(v.retryAfter) : limitProblems.signInThrottled(v.retryAfter);
  }

  private auditEntry(entry: Parameters<AuditStore['recordSignIn']>[0]): Promise<void> {
    return this.audit
      .recordSignIn(entry)
      .catch((err) => this.logger.error({ err, request_id: entry.request_id }, 'audit entry not written'));
  }

  private sweepSometimes(): void {
    const now = Date.now();
    if (now - this.swept < sweepEveryMs) return;
    this.swept = now;
    void this.events
      .sweep(new Date(now - 2 * this.policy.lockoutSeconds * 1000))
      .catch((err) => this.logger.warn({ err }, 'sign-in events not expired'));
  }
}

/** The same key for an e-mail in any case, whether or not an account has it. */
export const accountKey = (email: string) => sha256(`sign-in:${email.toLowerCase()}`);
