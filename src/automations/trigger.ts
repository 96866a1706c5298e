// Runs the automations (issue #21, SPEC §6.1) whose filters match recorded events, through the
// invocation runtime. Idempotent: called again for the same events, it starts nothing twice.
// (Skeleton: filled in by the automations work.)
import type { Db } from 'mongodb';
import type { RecordedEvent } from '../events/types.js';
import type { Config } from '../kernel/config/env.js';

export function createAutomationTrigger(_config: Config, _db: Db) {
  return async (_events: RecordedEvent[]): Promise<void> => {};
}
