import { v5 as uuidv5 } from 'uuid';

const automationNamespace = '0b7e9c2a-5d41-4f3e-9a86-2c1d7e4f9b30';

/**
 * The invocation an automation runs for one event: fixed by the two, so a dispatch retried (or run
 * twice) starts nothing new. Its workflow id is `invoke-<this>` (contracts/ids.ts invocationWorkflowId).
 */
export const automationInvocationId = (automationId: string, eventId: string) =>
  uuidv5(`automation:${automationId}:${eventId}`, automationNamespace);
