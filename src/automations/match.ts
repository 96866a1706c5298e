import { automationContent, automationType, type AutomationContent } from '../artifacts/content-types/automation.js';
import { baseType } from '../artifacts/content-types/base-type.js';
import type { RecordedEvent } from '../events/types.js';
import { mimeMatches } from '../identity/principal.js';
import { agentId, agents } from '../invocations/agents/registry.js';
import type { ArtifactDoc } from '../store/artifacts.js';

const schema = automationContent(new Set(agents.flatMap((a) => [a.name, agentId(a.name)])));

/** An automation draft's definition as it reads now, or why it cannot run (an agent it names was removed since, say). */
export function definitionOf(doc: ArtifactDoc): { ok: true; content: AutomationContent } | { ok: false; reason: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(doc.content);
  } catch {
    return { ok: false, reason: 'invalid: content is not JSON' };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, content: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, reason: `invalid: content.${issue.path.join('.')} ${issue.message}` };
}

export const isAutomation = (contentType: string | undefined) => contentType !== undefined && baseType(contentType) === automationType;

/**
 * Whether the event is one the automation reacts to: its kind, and its artifact's content type when
 * the automation names types. Events about automations themselves, and events from before the
 * automation existed, trigger nothing.
 */
export function matches(doc: ArtifactDoc, a: AutomationContent, event: RecordedEvent, contentType: string | undefined): boolean {
  if (!a.enabled || !a.on.kinds.includes(event.kind) || isAutomation(contentType)) return false;
  if (event.occurred_at < doc.provenance.created_at.toISOString()) return false;
  if (!a.on.content_types) return true;
  return contentType !== undefined && a.on.content_types.some((p) => mimeMatches(p, contentType));
}

/** A tool call's arguments with `{{event.id}}`, `{{event.kind}}`, `{{event.artifact_id}}`, `{{event.workspace_id}}` filled in. */
export function renderEvent<T>(value: T, event: RecordedEvent): T {
  const fields: Record<string, string> = {
    id: event.id,
    kind: event.kind,
    artifact_id: event.artifact_id,
    workspace_id: event.workspace_id,
  };
  if (typeof value === 'string')
    return value.replace(/\{\{\s*event\.(id|kind|artifact_id|workspace_id)\s*\}\}/g, (_, f: string) => fields[f]!) as T;
  if (Array.isArray(value)) return value.map((v) => renderEvent(v, event)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderEvent(v, event)])) as T;
  return value;
}
