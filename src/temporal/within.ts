/**
 * The promise's value if it settles within `ms` (a rejection is thrown as usual), else null. A promise
 * still pending then is left to run; its later failure is not reported as unhandled. For answering a
 * caller within a bound while the workflow goes on.
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    return await Promise.race([promise.then((value) => ({ value })), timeout]);
  } finally {
    clearTimeout(timer);
    promise.catch(() => undefined);
  }
}
