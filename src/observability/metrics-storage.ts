import { isStorageUnavailable, StorageDeadlineError } from '../store/deadline.js';
import { storageDuration, storageOperations } from './metrics.js';

/** What a storage call was, from the deadline wrapper's name of it: `artifacts.find (next batch)` is collection `artifacts`, operation `find.next`. */
export function storageCallLabels(what: string, dbName: string): { collection: string; operation: string } {
  const plain = what.replace(/ \(next batch\)$/, '.next').replace(/ \(close\)$/, '.close');
  const dot = plain.indexOf('.');
  const first = dot < 0 ? plain : plain.slice(0, dot);
  const rest = dot < 0 ? '' : plain.slice(dot + 1);
  const collection = first === dbName ? '(database)' : first;
  // Names come from the code (collection and driver method names); anything else is folded, never a label of its own.
  return {
    collection: /^[A-Za-z0-9_-]{1,64}$/.test(collection) || collection === '(database)' ? collection : 'other',
    operation: /^[A-Za-z.]{1,64}$/.test(rest) ? rest : 'other',
  };
}

/** The outcome of a storage call: ok, deadline (it missed its deadline), unavailable (the engine did not answer), or error. */
export function storageOutcome(err: unknown): string {
  if (err === undefined) return 'ok';
  if (err instanceof StorageDeadlineError) return 'deadline';
  return isStorageUnavailable(err) ? 'unavailable' : 'error';
}

/** The deadline wrapper's `onCall` for the database `dbName`: counts each call by collection, operation and outcome, with its latency. */
export function storageCallMetrics(dbName: string): (what: string, ms: number, err?: unknown) => void {
  return (what, ms, err) => {
    const labels = storageCallLabels(what, dbName);
    storageOperations.inc({ ...labels, outcome: storageOutcome(err) });
    storageDuration.observe(labels, ms / 1000);
  };
}
