/** What one request found in its bucket. */
export interface Take {
  allowed: boolean;
  /** Whole requests left now (the draft's `r`). */
  remaining: number;
  /** Seconds until the bucket gains its next whole request (the draft's `t`; `Retry-After` when refused). */
  nextSeconds: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets in this process's memory, one per key: `quota` requests, refilled evenly over
 * `windowSeconds`. Per replica by design (no storage round trip on every request), so N replicas
 * allow up to N times the quota. Buckets that have refilled are forgotten, which bounds memory by the
 * keys active within one window.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  private swept = 0;

  constructor(
    readonly name: string,
    readonly quota: number,
    readonly windowSeconds: number,
  ) {
    this.perMs = quota / (windowSeconds * 1000);
  }

  take(key: string, now = Date.now()): Take {
    this.sweep(now);
    const bucket = this.buckets.get(key);
    const tokens = bucket ? Math.min(this.quota, bucket.tokens + (now - bucket.at) * this.perMs) : this.quota;
    const allowed = tokens >= 1;
    const left = allowed ? tokens - 1 : tokens;
    this.buckets.set(key, { tokens: left, at: now });
    return { allowed, remaining: Math.floor(left), nextSeconds: Math.max(1, Math.ceil((1 - (left % 1)) / this.perMs / 1000)) };
  }

  /** The policy as RateLimit-Policy advertises it (draft-ietf-httpapi-ratelimit-headers-10). */
  policyHeader(): string {
    return `"${this.name}";q=${this.quota};w=${this.windowSeconds}`;
  }

  /** The current state as the RateLimit field gives it. */
  stateHeader(take: Take): string {
    return `"${this.name}";r=${take.remaining};t=${take.nextSeconds}`;
  }

  private sweep(now: number): void {
    if (now - this.swept < this.windowSeconds * 1000) return;
    this.swept = now;
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * this.perMs >= this.quota) this.buckets.delete(key);
    }
  }
}
