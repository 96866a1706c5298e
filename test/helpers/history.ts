// A workflow's history with its payloads opened by the platform's codec (issue #22: payloads are
// sealed in Temporal), for tests that look into what a workflow stored.
import { decodeHistory, payloadsIn } from '../../src/temporal/codec/history.js';
import { platformCodec } from '../../src/temporal/payload-codec.js';
import type { TestPlatform } from './platform.js';

export async function openedHistory(platform: TestPlatform, workflowId: string, runId?: string) {
  const history = await platform.services.temporal.workflow.getHandle(workflowId, runId).fetchHistory();
  return decodeHistory(history, platformCodec(platform.config));
}

/** The whole opened history as text: its fields, and every payload's data read as UTF-8 (JSON.stringify shows bytes as numbers). */
export async function openedHistoryText(platform: TestPlatform, workflowId: string, runId?: string): Promise<string> {
  const history = await openedHistory(platform, workflowId, runId);
  const payloads = payloadsIn(history).map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8'));
  return [JSON.stringify(history), ...payloads].join('\n');
}
