// The agent builder's path (issue #20): an invocation's page, /console/invocations/{id}. What the agent
// proposed (create, update, delete, log), each with its target and rationale; choose some and apply
// them (the rest stay proposed, to decide later: issue #37), apply them and discard the rest, discard
// the chosen ones, apply all or discard all; then the state as it moves. Everything the API says is text.
import { useEffect, useRef, useState } from 'preact/hooks';
import { movingInvocationStates, type Invocation as ApiInvocation, type Me, type ProposedAction } from './api';
import { ContainerName, Diff, Problem } from './commits';
import { useDecision } from './decision';
import { useLive } from './live';
import { follow } from './router';

const statusLabel: Record<string, string> = {
  running: 'running',
  awaiting_decision: 'awaiting your decision',
  applying: 'applying',
  completed: 'applied',
  discarded: 'discarded',
  expired: 'expired',
  refused: 'refused',
  failed: 'failed',
};

const kindLabel: Record<string, string> = {
  task_agent: 'task agent',
  llm: 'LLM run',
  mcp_tool_call: 'MCP tool call',
  mcp_resource_read: 'MCP resource read',
  transform_run: 'transform run',
};

/** A decision on an agent run; a preview may take several (issue #37). */
type Decision = NonNullable<ApiInvocation['decision']> & { discard_rest?: boolean };
/** What became of the actions, counted by the API at every state. */
type Progress = { applied: number; total: number } & Partial<Record<'proposed' | 'skipped' | 'discarded' | 'refused' | 'conflict', number>>;
type Invocation = Omit<ApiInvocation, 'progress' | 'decision'> & { progress?: Progress; decision?: Decision; decisions?: Decision[] };

const when = (iso: string) => new Date(iso).toLocaleString();
const counted = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "2 of 4 applied, 1 proposed, 1 discarded": the counts that are not zero. */
function progressText(p: Progress): string {
  const rest = (['proposed', 'discarded', 'skipped', 'refused', 'conflict'] as const)
    .filter((k) => (p[k] ?? 0) > 0)
    .map((k) => `${p[k]} ${k === 'conflict' ? 'in conflict' : k}`);
  return [`${p.applied} of ${counted(p.total, 'action')} applied`, ...rest].join(', ');
}
const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** What the action does to what, as its checkbox's name: "Create “Intro”", "Update Budget". */
function ActionName({ action }: { action: ProposedAction }) {
  switch (action.kind) {
    case 'create':
      return <>Create “{action.payload.title ?? 'untitled'}”</>;
    case 'update':
      return (
        <>
          Update <ContainerName kind="artifacts" id={action.target} />
        </>
      );
    case 'delete':
      return (
        <>
          Delete <ContainerName kind="artifacts" id={action.target} />
        </>
      );
    case 'log':
      return <>Note about the workspace</>;
  }
}

function Payload({ action }: { action: ProposedAction }) {
  const p = action.payload;
  const context = Object.entries(p.context ?? {});
  const label = `${action.id}`;
  return (
    <dl class="facts">
      {(action.kind === 'create' || action.kind === 'log') && (
        <>
          <dt>Workspace</dt>
          <dd>
            <ContainerName kind="workspaces" id={action.target} />
          </dd>
        </>
      )}
      {(action.kind === 'update' || action.kind === 'delete') && (
        <>
          <dt>Target</dt>
          <dd>
            <ContainerName kind="artifacts" id={action.target} />
          </dd>
        </>
      )}
      {p.title !== undefined && action.kind === 'update' && (
        <>
          <dt>New title</dt>
          <dd>{p.title}</dd>
        </>
      )}
      {p.content_type && (
        <>
          <dt>Type</dt>
          <dd>{p.content_type}</dd>
        </>
      )}
      {context.length > 0 && (
        <>
          <dt>{action.kind === 'update' ? 'Context set' : 'Context'}</dt>
          <dd>
            <ul class="changes" aria-label={`Context of ${label}`}>
              {context.map(([key, value]) => (
                <li key={key}>
                  {key}: {shown(value)}
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
      {p.message !== undefined && (
        <>
          <dt>{p.level === 'warning' ? 'Warning' : 'Message'}</dt>
          <dd>{p.message}</dd>
        </>
      )}
      {action.content_diff ? (
        <>
          <dt>Changes</dt>
          <dd>
            <Diff diff={action.content_diff} label={`Changes proposed by ${label}`} />
          </dd>
        </>
      ) : (
        p.content !== undefined && (
          <>
            <dt>{action.kind === 'update' ? 'New content' : 'Content'}</dt>
            <dd>
              <pre class="content" aria-label={`Content of ${label}`}>
                {p.content}
              </pre>
            </dd>
          </>
        )
      )}
      {action.reason && (
        <>
          <dt>Reason</dt>
          <dd>{action.reason}</dd>
        </>
      )}
      {action.artifact_id && action.status === 'applied' && (
        <>
          <dt>Artifact</dt>
          <dd>{action.artifact_id}</dd>
        </>
      )}
    </dl>
  );
}

function Action({
  action,
  choosable,
  chosen,
  onChoose,
}: {
  action: ProposedAction;
  choosable: boolean;
  chosen: boolean;
  onChoose: (on: boolean) => void;
}) {
  const box = `choose-${action.id}`;
  const why = `why-${action.id}`;
  return (
    <li class={`item action action-${action.kind}`} data-action-id={action.id}>
      <h3>
        {choosable ? (
          <label for={box}>
            <input
              id={box}
              type="checkbox"
              checked={chosen}
              aria-describedby={why}
              onChange={(event) => onChoose((event.currentTarget as HTMLInputElement).checked)}
            />{' '}
            <ActionName action={action} />
          </label>
        ) : (
          <ActionName action={action} />
        )}
      </h3>
      <p>
        <span class={`badge badge-${action.kind}`}>{action.kind}</span> {action.id},{' '}
        <span class={`action-status status-${action.status}`} data-testid={`status-${action.id}`}>
          {action.status}
        </span>
      </p>
      <p id={why} class="rationale">
        Why: {action.rationale}
      </p>
      <Payload action={action} />
    </li>
  );
}

/**
 * The decision, in parts if wished: apply the chosen actions (the others stay proposed until decided
 * or the run expires), apply them and discard the rest, discard the chosen ones, apply all, discard all.
 */
function Decide({ invocation, chosen, onDecided }: { invocation: Invocation; chosen: string[]; onDecided: (next: Invocation) => void }) {
  const { error, setError, busy, post } = useDecision(onDecided);
  const path = `/invocations/${encodeURIComponent(invocation.invocation_id)}`;
  const open = (invocation.actions ?? []).filter((a) => a.status === 'proposed').length;

  const withChosen = (then: () => void) => () => {
    if (chosen.length === 0) {
      setError('Choose at least one action first, or decide on all of them.');
      return;
    }
    then();
  };
  const applyChosen = withChosen(() => post(`${path}/apply`, { action_ids: chosen }));
  const applyDiscardRest = withChosen(() => post(`${path}/apply`, { action_ids: chosen, discard_rest: true }));
  const discardChosen = withChosen(() => post(`${path}/discard`, { action_ids: chosen }));

  return (
    <form
      class="decide"
      aria-labelledby="decide-title"
      onSubmit={(event) => {
        event.preventDefault();
        applyChosen();
      }}
    >
      <h2 id="decide-title">Your decision</h2>
      <p>
        {chosen.length === 0 ? 'No action chosen.' : `${chosen.length} chosen: ${chosen.join(', ')}.`} {counted(open, 'action')} still
        proposed. Actions you do not choose stay proposed: decide on them later
        {invocation.expires_at ? (
          <>
            , until <time dateTime={invocation.expires_at}>{when(invocation.expires_at)}</time>
          </>
        ) : null}
        , or discard them.
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          Apply selected
        </button>
        <button type="button" disabled={busy} onClick={applyDiscardRest}>
          Apply selected, discard the rest
        </button>
        <button type="button" class="danger" disabled={busy} onClick={discardChosen}>
          Discard selected
        </button>
        <button type="button" disabled={busy} onClick={() => post(`${path}/apply`, {})}>
          Apply all
        </button>
        <button type="button" class="danger" disabled={busy} onClick={() => post(`${path}/discard`, {})}>
          Discard all
        </button>
      </div>
    </form>
  );
}

/** One decision as a fact: who, when, on what. */
function DecisionFact({ decision, who }: { decision: Decision; who: (by: string) => string }) {
  return (
    <>
      <dt>{decision.action === 'apply' ? 'Applied by' : 'Discarded by'}</dt>
      <dd>
        {who(decision.by)}, <time dateTime={decision.at}>{when(decision.at)}</time>
        {decision.action_ids && <> (chosen: {decision.action_ids.join(', ')})</>}
        {decision.discard_rest && <>, the rest discarded</>}
      </dd>
    </>
  );
}

/** GET /invocations/{id}; while it runs or applies, read again every second. */
export function InvocationView({ id, me }: { id: string; me: Me | null }) {
  const path = `/invocations/${encodeURIComponent(id)}`;
  const live = useLive<Invocation>(path, (i) => movingInvocationStates.includes(i.status));
  const { value: invocation, setValue: setInvocation, error } = live;
  const [chosen, setChosen] = useState<string[]>([]);
  const heading = useRef<HTMLHeadingElement>(null);

  const shownId = invocation?.invocation_id;
  useEffect(() => {
    if (shownId) heading.current?.focus();
  }, [shownId]);

  const back = (
    <p>
      <a href="/console/" onClick={follow}>
        ← Overview
      </a>
    </p>
  );

  if (!invocation)
    return (
      <section aria-label="Invocation">
        {back}
        <Problem error={error} />
        {!error && <p role="status">Loading…</p>}
      </section>
    );

  const actions = invocation.actions ?? [];
  const deciding = invocation.status === 'awaiting_decision';
  const choosable = (a: ProposedAction) => deciding && a.status === 'proposed';
  const who = (by: string) => (me && by === me.id ? 'you' : by);
  const name = invocation.agent?.name ?? kindLabel[invocation.kind] ?? invocation.kind;

  return (
    <article aria-labelledby="invocation-title">
      {back}
      <h1 id="invocation-title" ref={heading} tabIndex={-1}>
        Invocation of {name}
      </h1>
      <p role="status" aria-live="polite" class={`state state-${invocation.status}`}>
        State: <strong data-testid="invocation-state">{statusLabel[invocation.status] ?? invocation.status}</strong>
        {invocation.progress && invocation.progress.total > 0 && (
          <>
            {' '}
            (<span data-testid="invocation-progress">{progressText(invocation.progress)}</span>)
          </>
        )}
      </p>
      <Problem error={error} />
      {invocation.error && (
        <p class="error" role="alert">
          {invocation.error.type}: {invocation.error.message}
        </p>
      )}
      <dl class="facts">
        <dt>Kind</dt>
        <dd>{kindLabel[invocation.kind] ?? invocation.kind}</dd>
        {invocation.agent && (
          <>
            <dt>Agent</dt>
            <dd title={invocation.agent.id}>{invocation.agent.name}</dd>
          </>
        )}
        {invocation.mode && (
          <>
            <dt>Mode</dt>
            <dd>{invocation.mode}</dd>
          </>
        )}
        {invocation.workspace_id && (
          <>
            <dt>Workspace</dt>
            <dd>
              <ContainerName kind="workspaces" id={invocation.workspace_id} />
            </dd>
          </>
        )}
        {invocation.started_at && (
          <>
            <dt>Started</dt>
            <dd>
              <time dateTime={invocation.started_at}>{when(invocation.started_at)}</time>
            </dd>
          </>
        )}
        {invocation.expires_at && deciding && (
          <>
            <dt>Expires</dt>
            <dd>
              <time dateTime={invocation.expires_at}>{when(invocation.expires_at)}</time>
            </dd>
          </>
        )}
        {invocation.output && (
          <>
            <dt>Output</dt>
            <dd>{invocation.output}</dd>
          </>
        )}
        {(invocation.decisions ?? (invocation.decision ? [invocation.decision] : [])).map((d) => (
          <DecisionFact key={`${d.at}-${d.action}-${(d.action_ids ?? []).join()}`} decision={d} who={who} />
        ))}
      </dl>

      <section aria-labelledby="actions-title">
        <h2 id="actions-title">Proposed actions</h2>
        {invocation.actions === undefined && <p>This invocation does not propose actions.</p>}
        {invocation.actions !== undefined && actions.length === 0 && (
          <p>{invocation.status === 'running' ? 'The agent is at work…' : 'No action was proposed.'}</p>
        )}
        {actions.length > 0 && (
          <ol class="items" aria-label="Proposed actions">
            {actions.map((action) => (
              <Action
                key={action.id}
                action={action}
                choosable={choosable(action)}
                chosen={chosen.includes(action.id)}
                onChoose={(on) =>
                  setChosen((before) =>
                    on
                      ? actions.map((a) => a.id).filter((a) => a === action.id || before.includes(a))
                      : before.filter((a) => a !== action.id),
                  )
                }
              />
            ))}
          </ol>
        )}
      </section>

      {deciding && (
        <Decide
          invocation={invocation}
          chosen={chosen.filter((c) => actions.some((a) => a.id === c && choosable(a)))}
          onDecided={(next) => {
            setInvocation(next);
            setChosen([]);
          }}
        />
      )}
    </article>
  );
}
