// Runs the automations (issue #21, SPEC §6.1) whose filters match recorded events, through the
// invocation runtime. Idempotent: called again for the same events, it starts nothing twice.
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { automationType } from '../artifacts/content-types/automation.js';
import type { RecordedEvent } from '../events/types.js';
import type { Config } from '../kernel/config/env.js';
import { ArtifactStore, type ArtifactDoc } from '../store/artifacts.js';
import { ContainerStore } from '../store/containers.js';
import { UserStore } from '../store/users.js';
import { startOnce } from '../temporal/start-once.js';
import { invocationWorkflowId } from '../workflows/contracts/ids.js';
import { automationInvocationId } from './ids.js';
import { definitionOf, matches } from './match.js';
import { plan, type PlanDeps } from './plan.js';
import { AutomationRunStore, type AutomationRunDoc } from './runs.js';

/** Most automations one workspace runs per event (the oldest first). */
const perWorkspace = 200;
const automationTypePattern = new RegExp(`^${automationType.replace(/[.+]/g, '\\$&')}\\s*(;|$)`, 'i');

export interface TriggerOptions {
  /** The Temporal client; inside the dispatch activity, the activity's own. */
  client?: () => Client;
  /** Where a refusal or a loop-guard stop is told; inside the activity, its logger. */
  log?: (message: string, fields: Record<string, unknown>) => void;
}

/** The workspace's automations: its drafts of the automation type, not archived, oldest first. */
/**
 * The workspace's automations, on every dispatch of its events: a range of the (collection_id,
 * content_type, _id) index from the automation type (with or without parameters), then the exact type
 * checked here. A case-insensitive pattern is served by no index, and read every artifact of the
 * workspace per batch of events (issue #31). So the type must be written in lower case, as the
 * specification writes it (docs/decisions.md).
 */
async function automationsOf(db: Db, workspaceId: string): Promise<ArtifactDoc[]> {
  const docs = await db
    .collection<ArtifactDoc>('artifacts')
    .find({
      collection_id: workspaceId,
      content_type: { $gte: automationType, $lt: `${automationType}\u{10FFFF}` },
      container_kind: 'workspace',
      archived_at: { $exists: false },
    })
    .sort({ content_type: 1, _id: 1 })
    .limit(perWorkspace)
    .toArray();
  return docs.filter((doc) => automationTypePattern.test(doc.content_type)).sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
}

export function createAutomationTrigger(config: Config, db: Db, options: TriggerOptions = {}) {
  const artifacts = new ArtifactStore(db);
  const deps: PlanDeps = { config, artifacts, containers: new ContainerStore(db), users: new UserStore(db) };
  const runs = new AutomationRunStore(db);
  const client = options.client ?? (() => Context.current().client);
  const log = options.log ?? ((message, fields) => Context.current().log.warn(message, fields));

  /** The event's content type: recorded with it (the outbox), else the artifact's as it is now. */
  const typeOf = async (event: RecordedEvent) => event.content_type ?? (await artifacts.get(event.artifact_id))?.content_type;

  async function runFor(doc: ArtifactDoc, event: RecordedEvent, content: Parameters<typeof plan>[2]): Promise<void> {
    const depth = event.depth ?? 0;
    const record: Omit<AutomationRunDoc, '_id' | 'at' | 'status'> = {
      automation_id: doc._id,
      event_id: event.id,
      event_kind: event.kind,
      workspace_id: event.workspace_id,
      artifact_id: event.artifact_id,
      event_depth: depth,
      run_as: doc.provenance.created_by,
    };
    if (depth >= config.AUTOMATION_MAX_DEPTH) {
      const reason = `loop guard: the event comes from ${depth} nested automation runs (AUTOMATION_MAX_DEPTH ${config.AUTOMATION_MAX_DEPTH})`;
      log('automation not run: loop guard', { ...record, reason });
      return runs.record({ ...record, status: 'loop_guard', reason });
    }
    const invocationId = automationInvocationId(doc._id, event.id);
    const decided = await plan(deps, doc, content, event, invocationId);
    if ('refused' in decided) {
      log('automation run refused', { ...record, reason: decided.refused });
      return runs.record({ ...record, status: 'refused', reason: decided.refused });
    }
    const { workflow, input, attributes } = decided.start;
    // Started once under the id fixed by automation and event: a second dispatch finds it started.
    await startOnce(client(), workflow, {
      workflowId: invocationWorkflowId(invocationId),
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: attributes,
      memo: { automation_id: doc._id, event_id: event.id, event_kind: event.kind, artifact_id: event.artifact_id, depth: depth + 1 },
    });
    await runs.record({ ...record, status: 'started', invocation_id: invocationId });
  }

  return async (events: RecordedEvent[]): Promise<void> => {
    if (config.AUTOMATION_MAX_DEPTH === 0) return; // automations are off
    const byWorkspace = new Map<string, RecordedEvent[]>();
    for (const e of events) byWorkspace.set(e.workspace_id, [...(byWorkspace.get(e.workspace_id) ?? []), e]);
    for (const [workspaceId, list] of byWorkspace) {
      const automations = (await automationsOf(db, workspaceId)).flatMap((doc) => {
        const d = definitionOf(doc);
        return d.ok ? [{ doc, content: d.content }] : [];
      });
      if (automations.length === 0) continue;
      for (const event of [...list].sort((x, y) => x.seq - y.seq)) {
        const contentType = await typeOf(event);
        for (const { doc, content } of automations) {
          if (matches(doc, content, event, contentType)) await runFor(doc, event, content);
        }
      }
    }
  };
}
