import { limitProblems } from '../../kernel/errors/limits.js';
import type { TokenBuckets } from '../../rate-limits/token-bucket.js';
import { clientIp, ipLimitKey } from '../client-ip.js';
import type { AppContext } from '../context.js';
import type { Principal } from '../../identity/principal.js';

/**
 * Takes one request from the key's bucket. Every answer carries the policy and what is left
 * (RateLimit-Policy / RateLimit, draft-ietf-httpapi-ratelimit-headers-10); past the quota the answer
 * is 429 `rate-limited` with Retry-After.
 */
function spend(ctx: AppContext, buckets: TokenBuckets, key: string): void {
  const take = buckets.take(key);
  const headers = { 'RateLimit-Policy': buckets.policyHeader(), RateLimit: buckets.stateHeader(take) };
  if (!take.allowed) throw limitProblems.rateLimited(buckets.name, take.nextSeconds, headers);
  ctx.set(headers);
}

/** The per-principal limit (RATE_LIMIT_PER_MINUTE), once the bearer token has become a principal. */
export function limitPrincipal(ctx: AppContext, { actor }: Principal): void {
  const buckets = ctx.services.rateLimits.principals;
  if (buckets) spend(ctx, buckets, `${actor.kind}:${actor.id}`);
}

/** The per-IP limit of the endpoints that turn credentials into tokens (AUTH_RATE_LIMIT_PER_MINUTE). */
export function limitCredentialExchange(ctx: AppContext): void {
  const buckets = ctx.services.rateLimits.credentials;
  if (buckets) spend(ctx, buckets, ipLimitKey(clientIp(ctx, ctx.services.config.TRUST_PROXY_HOPS)));
}
