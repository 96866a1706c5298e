import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';

const idempotencyNamespace = '3c9e2b71-8a4f-4d6e-b5c1-7f0a9d2e6b43';

/**
 * An invocation's id: with an `Idempotency-Key`, fixed by the person, the target, the key and the
 * request (the same key with another request is another invocation), so a retried request finds the
 * run it started; without one, new.
 */
export const invocationIdFor = (subject: string, target: string, key: string | undefined, request: unknown) =>
  key ? uuidv5(`${subject}:${target}:${key}:${JSON.stringify(request)}`, idempotencyNamespace) : uuidv7();
