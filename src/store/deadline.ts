/** How long a request waits for one storage call before it gives up (DESIGN: every storage call has a deadline). */
export const storageDeadlineMs = 5000;

/** A storage call did not answer in time; the API answers 503 and the caller may retry. */
export class StorageDeadlineError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`);
    this.name = 'StorageDeadlineError';
  }
}

/**
 * Waits for a storage call at most `ms`. Reads should also pass `maxTimeMS` so the server stops
 * working on them; a write that misses the deadline may still land, which every caller here
 * tolerates (each is an insert of its own document, or a delete of one).
 */
export async function withDeadline<T>(what: string, work: Promise<T>, ms = storageDeadlineMs): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StorageDeadlineError(what, ms)), ms);
  });
  work.catch(() => undefined); // a call that fails after the deadline has nobody left to tell
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
