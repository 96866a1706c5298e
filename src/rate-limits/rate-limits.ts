import type { Config } from '../kernel/config/env.js';
import { TokenBuckets } from './token-bucket.js';

/** The request rate limits of one API replica; null where the configuration turns one off (0). */
export interface RateLimits {
  /** Per principal (actor), on every authenticated route, /mcp included. */
  principals: TokenBuckets | null;
  /** Per client IP (IPv6 by /64), on the endpoints that exchange credentials for tokens. */
  credentials: TokenBuckets | null;
}

export function createRateLimits(config: Config): RateLimits {
  return {
    principals: config.RATE_LIMIT_PER_MINUTE > 0 ? new TokenBuckets('default', config.RATE_LIMIT_PER_MINUTE, 60) : null,
    credentials: config.AUTH_RATE_LIMIT_PER_MINUTE > 0 ? new TokenBuckets('credentials', config.AUTH_RATE_LIMIT_PER_MINUTE, 60) : null,
  };
}
