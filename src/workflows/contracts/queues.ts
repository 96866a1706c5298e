/**
 * Embedding runs on its own task queue, next to the main one, with a few slots: a burst of writes
 * (an import, a 1,000-artifact commit) queues its indexing there, and never delays a commit, an
 * approval or an invocation waiting on the main queue.
 */
export const indexingQueue = (taskQueue: string) => `${taskQueue}-indexing`;
