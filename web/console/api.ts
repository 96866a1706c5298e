// The REST API, as the signed-in person: the bearer token from memory, refreshed before it expires or
// once after a 401. Same origin, no cookies.
import { refresh, type Tokens } from './auth';

let tokens: Tokens | null = null;
let refreshing: Promise<Tokens> | null = null;
const listeners = new Set<(signedIn: boolean) => void>();

export function setTokens(next: Tokens | null): void {
  tokens = next;
  for (const listener of listeners) listener(next !== null);
}

export const currentTokens = () => tokens;

/** Called when the person becomes signed in or out (a refresh that fails signs them out). */
export function onSessionChange(listener: (signedIn: boolean) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

async function fresh(force: boolean): Promise<Tokens> {
  if (!tokens) throw new Error('Not signed in.');
  if (!force && tokens.expiresAt - Date.now() > 30_000) return tokens;
  refreshing ??= refresh(tokens).finally(() => (refreshing = null));
  try {
    const next = await refreshing;
    tokens = next;
    return next;
  } catch (err) {
    setTokens(null);
    throw err;
  }
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The problem+json body, whose `type` a page may switch on (`urn:platform:problem:<slug>`). */
    readonly problem: { type?: string; [member: string]: unknown } = {},
  ) {
    super(message);
  }
}

export async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const send = async (force: boolean) => {
    const { access } = await fresh(force);
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${access}`);
    // A FormData body gets its multipart type (with the boundary) from fetch itself.
    if (init.body && !(init.body instanceof FormData) && !headers.has('content-type')) headers.set('content-type', 'application/json');
    return fetch(path, { ...init, headers, credentials: 'omit', cache: 'no-store' });
  };
  let res = await send(false);
  if (res.status === 401 && tokens?.refresh) res = await send(true);
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { type?: string; detail?: string; title?: string };
    throw new ApiError(res.status, body.detail ?? body.title ?? `HTTP ${res.status}`, body);
  }
  return (res.status === 204 ? undefined : await res.json()) as T;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface Workspace {
  id: string;
  name: string;
}

export interface Me {
  id: string;
  email?: string;
  is_admin: boolean;
}

export type CommitState = 'previewing' | 'awaiting_approval' | 'applying' | 'committed' | 'rejected' | 'expired' | 'failed';

export interface Counts {
  new: number;
  modified: number;
  unchanged: number;
}

export interface Commit {
  id: string;
  workspace_id: string;
  collection_id: string;
  message: string | null;
  state: CommitState;
  requested_by: string;
  requested_via?: { kind: string; id: string };
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  decision: { action: 'approve' | 'reject'; by: string; comment: string | null; at: string } | null;
  progress: { applied: number; total: number } | null;
  preview: { counts: Counts } | null;
  results: { source_artifact_id: string; artifact_id: string; version: number }[] | null;
  error?: unknown;
  /** An approval was refused because the preview went stale (409 commit-stale): what moved. */
  stale?: { items: StaleItem[]; at: string };
}

/** A collection artifact that moved past the head a commit's preview was made against. */
export interface StaleItem {
  source_artifact_id: string;
  artifact_id: string;
  title: string;
  previewed_version: number | null;
  current_version: number | null;
}

export interface CommitItem {
  source_artifact_id: string;
  artifact_id: string;
  title: string;
  content_type: string;
  status: 'new' | 'modified' | 'unchanged';
  version: number;
  current_version: number | null;
  changed_fields: string[];
  changes?: Record<string, { from: unknown; to: unknown }>;
  content_diff?: string | null;
  content_diff_truncated?: boolean;
}

/** States a commit does not leave. */
export const finalStates: readonly CommitState[] = ['committed', 'rejected', 'expired', 'failed'];

export type InvocationStatus = 'running' | 'awaiting_decision' | 'applying' | 'completed' | 'discarded' | 'expired' | 'refused' | 'failed';

export type ActionStatus = 'proposed' | 'refused' | 'applied' | 'conflict' | 'discarded' | 'skipped';

/** A proposed action as GET /invocations/{id} records it; `content_diff` only if the API gives one. */
export interface ProposedAction {
  id: string;
  kind: 'create' | 'update' | 'delete' | 'log';
  target: string;
  payload: {
    title?: string;
    content_type?: string;
    content?: string;
    context?: Record<string, unknown>;
    message?: string;
    level?: 'info' | 'warning';
  };
  rationale: string;
  status: ActionStatus;
  reason?: string;
  artifact_id?: string;
  base_revision?: number;
  content_diff?: string | null;
}

/** GET /invocations/{id}: an agent or LLM run (with actions), or another kind (a tool call, a transform run). */
export interface Invocation {
  invocation_id: string;
  kind: string;
  agent?: { id: string; name: string };
  mode?: 'preview' | 'apply';
  workspace_id?: string;
  status: string;
  output?: string | null;
  actions?: ProposedAction[];
  progress?: { applied: number; total: number };
  decision?: { action: 'apply' | 'discard'; by: string; at: string; action_ids?: string[] };
  error?: { type: string; message: string };
  started_at?: string;
  expires_at?: string;
  completed_at?: string;
}

/** Invocation states that move on by themselves: the page reads them again. */
export const movingInvocationStates: readonly string[] = ['running', 'applying'];
