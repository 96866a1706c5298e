import { Problem } from './problem.js';

/**
 * The 429 problems of rate limits and sign-in throttling, each with a stable `type` and the seconds
 * to wait in `Retry-After`. Their details never say whether an account exists.
 */
export const limitProblems = {
  rateLimited: (policy: string, retryAfter: number, headers: Record<string, string> = {}) =>
    new Problem(
      429,
      'rate-limited',
      'Too many requests',
      `The "${policy}" rate limit is used up; retry in ${retryAfter} s.`,
      { policy },
      {
        ...headers,
        'Retry-After': String(retryAfter),
      },
    ),
  signInThrottled: (retryAfter: number) =>
    new Problem(
      429,
      'sign-in-throttled',
      'Sign-in slowed down',
      `Too many failed sign-ins for this e-mail: wait ${retryAfter} s before the next try.`,
      {},
      {
        'Retry-After': String(retryAfter),
      },
    ),
  accountLocked: (retryAfter: number) =>
    new Problem(
      429,
      'account-locked',
      'Sign-in locked',
      `Too many failed sign-ins for this e-mail: sign-in is locked for ${retryAfter} s, or until an administrator unlocks it.`,
      {},
      { 'Retry-After': String(retryAfter) },
    ),
};
