// The reviewer's path (issue #20): commits awaiting approval, one commit's preview with each item's
// unified diff, approve or reject with a comment, then the state as it moves. Everything the API says
// is rendered as text (Preact escapes it); a diff is split into lines, each a text node with a class.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, finalStates, type Commit, type CommitItem, type Me, type StaleItem } from './api';
import { useDecision } from './decision';
import { useLive } from './live';
import { usePaged } from './paged';
import { follow } from './router';
import { Diff } from './diff';
import { NameOf } from './names';
import { SourceText } from './provenance';
import { artifactPath } from './browse-api';

export { Diff };

const names = new Map<string, Promise<string | null>>();

type Container = 'workspaces' | 'collections';
type Named = Container | 'artifacts';

const unreadable: Record<Container, string> = {
  workspaces: 'a workspace you cannot see',
  collections: 'a collection you cannot see',
};

/** A workspace's or collection's name, looked up once; null when it cannot be read. */
function containerName(kind: Container, id: string): Promise<string | null> {
  const key = `${kind}/${id}`;
  let name = names.get(key);
  if (!name) {
    name = api<{ name?: string }>(`/${kind}/${encodeURIComponent(id)}`).then(
      (c) => c.name ?? null,
      () => null,
    );
    names.set(key, name);
  }
  return name;
}

function ContainerOnly({ kind, id }: { kind: Container; id: string }) {
  const [name, setName] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    setName(undefined);
    void containerName(kind, id).then((n) => live && setName(n));
    return () => {
      live = false;
    };
  }, [kind, id]);
  if (name === null)
    return (
      <span class="name name-unknown" title={id}>
        {unreadable[kind]}
      </span>
    );
  return <span title={id}>{name ?? '…'}</span>;
}

/** A workspace's or collection's name, or an artifact's title (from GET /names, ./names), never its id (issue #37). */
export function ContainerName({ kind, id }: { kind: Named; id: string }) {
  return kind === 'artifacts' ? <NameOf kind="artifacts" id={id} /> : <ContainerOnly kind={kind} id={id} />;
}

/** "you" or the person's e-mail, and the credential the request came through by its name (issue #37). */
function Requester({ commit }: { commit: Commit }) {
  return (
    <span data-testid="commit-requester">
      <NameOf kind="people" id={commit.requested_by} />
      {commit.requested_via && <SourceText source={{ via: commit.requested_via }} />}
    </span>
  );
}

const when = (iso: string) => new Date(iso).toLocaleString();

function counts(commit: Commit): string {
  const c = commit.preview?.counts;
  return c ? `${c.new} new, ${c.modified} modified, ${c.unchanged} unchanged` : 'preview not ready';
}

const stateLabel: Record<Commit['state'], string> = {
  previewing: 'previewing',
  awaiting_approval: 'awaiting approval',
  applying: 'applying',
  committed: 'committed',
  rejected: 'rejected',
  expired: 'expired',
  failed: 'failed',
};

const title = (commit: Commit) => commit.message || `Commit requested ${when(commit.created_at)}`;

export function Problem({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

/** GET /commits?state=awaiting_approval, a page at a time. */
export function AwaitingCommits(_: { me: Me | null }) {
  const { items: commits, error, loading, more } = usePaged<Commit>('/commits?state=awaiting_approval');

  return (
    <section aria-labelledby="awaiting-title">
      <h2 id="awaiting-title">Commits awaiting your approval</h2>
      <Problem error={error} />
      {!error && commits === null && <p role="status">Loading…</p>}
      {commits?.length === 0 && <p>No commit is waiting for a decision.</p>}
      {commits && commits.length > 0 && (
        <ul class="commits" aria-label="Commits awaiting approval">
          {commits.map((c) => (
            <li key={c.id}>
              <a href={`/console/commits/${encodeURIComponent(c.id)}`} onClick={follow}>
                {title(c)}
              </a>
              <dl class="facts">
                <dt>Workspace</dt>
                <dd>
                  <ContainerName kind="workspaces" id={c.workspace_id} />
                </dd>
                <dt>Collection</dt>
                <dd>
                  <ContainerName kind="collections" id={c.collection_id} />
                </dd>
                <dt>Requested by</dt>
                <dd>
                  <Requester commit={c} />
                </dd>
                <dt>Requested</dt>
                <dd>
                  <time dateTime={c.created_at}>{when(c.created_at)}</time>
                </dd>
                <dt>Changes</dt>
                <dd>{counts(c)}</dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
      {more && (
        <button type="button" disabled={loading} onClick={more}>
          Show more commits
        </button>
      )}
    </section>
  );
}

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function Item({ item }: { item: CommitItem }) {
  const becomes =
    item.status === 'new'
      ? `becomes version ${item.version}`
      : item.status === 'modified'
        ? `version ${item.current_version ?? '?'} becomes version ${item.version}`
        : `stays version ${item.version}`;
  const changes = Object.entries(item.changes ?? {});
  return (
    <li class={`item item-${item.status}`}>
      <h3>{item.title}</h3>
      <p>
        <span class={`badge badge-${item.status}`}>{item.status}</span> {item.content_type}, {becomes}
        {item.changed_fields.length > 0 && item.status === 'modified' && <>; changed: {item.changed_fields.join(', ')}</>}
      </p>
      {changes.length > 0 && (
        <ul class="changes" aria-label={`Changed fields of ${item.title}`}>
          {changes.map(([field, { from, to }]) => (
            <li key={field}>
              {field}: {shown(from)} → {shown(to)}
            </li>
          ))}
        </ul>
      )}
      {item.content_diff && <Diff diff={item.content_diff} label={`Changes to ${item.title}`} />}
      {item.content_diff_truncated && <p class="note">The diff is cut short.</p>}
    </li>
  );
}

function Progress({ commit }: { commit: Commit }) {
  const p = commit.progress;
  if (!p || p.total === 0 || !['applying', 'committed', 'failed'].includes(commit.state)) return null;
  return (
    <p>
      <progress value={p.applied} max={p.total} aria-label="Applied" /> {p.applied}/{p.total} applied
    </p>
  );
}

const version = (n: number | null) => (n === null ? 'none (new)' : `version ${n}`);

/** An approval refused with 409 commit-stale: what moved, and what to do instead (not a generic error). */
function Stale({ items }: { items: StaleItem[] }) {
  return (
    <div class="error stale" role="alert" data-testid="commit-stale">
      <p>
        <strong>This preview is stale.</strong> The collection changed since it was made, so approving it would not do what it shows.
        Nothing was written. Request a new commit from the workspace to review the changes as they are now; you can still reject this one.
      </p>
      {items.length > 0 && (
        <ul aria-label="Artifacts that changed since the preview">
          {items.map((i) => (
            <li key={i.artifact_id}>
              {i.title}: previewed against {version(i.previewed_version)}, the collection now has {version(i.current_version)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Approve (comment optional) or reject (comment required). */
function Decide({ commit, onDecided }: { commit: Commit; onDecided: (c: Commit) => void }) {
  const [comment, setComment] = useState('');
  const { error, setError, problem, busy, post } = useDecision(onDecided);
  // Refused just now, or earlier (the record says so): either way this preview cannot be approved.
  const refused = problem?.type === 'urn:platform:problem:commit-stale' ? ((problem.items as StaleItem[] | undefined) ?? []) : null;
  const stale = refused ?? commit.stale?.items ?? null;
  const field = useRef<HTMLTextAreaElement>(null);

  const decide = (action: 'approve' | 'reject') => {
    const text = comment.trim();
    if (action === 'reject' && !text) {
      setError('Say why you reject this commit: a comment is required.');
      field.current?.focus();
      return;
    }
    post(`/commits/${encodeURIComponent(commit.id)}/${action}`, text ? { comment: text } : {});
  };

  return (
    <form
      class="decide"
      aria-labelledby="decide-title"
      onSubmit={(event) => {
        event.preventDefault();
        decide('approve');
      }}
    >
      <h2 id="decide-title">Your decision</h2>
      <label for="decision-comment">Comment (optional to approve, required to reject)</label>
      <textarea
        id="decision-comment"
        ref={field}
        rows={3}
        maxLength={2000}
        value={comment}
        aria-invalid={error !== null && !refused && !comment.trim()}
        aria-describedby={error ? 'decide-error' : undefined}
        onInput={(event) => setComment((event.currentTarget as HTMLTextAreaElement).value)}
      />
      {stale && <Stale items={stale} />}
      {error && !refused && (
        <p id="decide-error" class="error" role="alert">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy || stale !== null}>
          Approve
        </button>
        <button type="button" class="danger" disabled={busy} onClick={() => decide('reject')}>
          Reject
        </button>
      </div>
    </form>
  );
}

/** GET /commits/{id} and its items with their diffs; while it moves, read again every second. */
export function CommitView({ id }: { id: string; me: Me | null }) {
  const path = `/commits/${encodeURIComponent(id)}`;
  // Read again while the commit is still moving (previewing, applying, or just decided).
  const live = useLive<Commit>(path, (c) => c.state !== 'awaiting_approval' && !finalStates.includes(c.state));
  const { value: commit, setValue: setCommit, error } = live;
  const { items, error: itemsError, more, reload: reloadItems } = usePaged<CommitItem>(`${path}/items`);
  const heading = useRef<HTMLHeadingElement>(null);

  // Focus the heading once the commit shows, so a screen reader starts there.
  const shownId = commit?.id;
  useEffect(() => {
    if (shownId) heading.current?.focus();
  }, [shownId]);

  const state = commit?.state;
  // The items wait for the preview: read them again once it is ready.
  useEffect(() => {
    if (state && state !== 'previewing' && items?.length === 0) reloadItems();
  }, [state]);

  if (!commit)
    return (
      <section aria-label="Commit">
        <p>
          <a href="/console/" onClick={follow}>
            ← All commits
          </a>
        </p>
        <Problem error={error} />
        {!error && <p role="status">Loading…</p>}
      </section>
    );

  return (
    <article aria-labelledby="commit-title">
      <p>
        <a href="/console/" onClick={follow}>
          ← All commits
        </a>
      </p>
      <h1 id="commit-title" ref={heading} tabIndex={-1}>
        {title(commit)}
      </h1>
      <p role="status" aria-live="polite" class={`state state-${commit.state}`}>
        State: <strong data-testid="commit-state">{stateLabel[commit.state]}</strong>
      </p>
      <Progress commit={commit} />
      <Problem error={error} />
      <dl class="facts">
        <dt>Workspace</dt>
        <dd>
          <ContainerName kind="workspaces" id={commit.workspace_id} />
        </dd>
        <dt>Collection</dt>
        <dd>
          <ContainerName kind="collections" id={commit.collection_id} />
        </dd>
        <dt>Requested by</dt>
        <dd>
          <Requester commit={commit} />
        </dd>
        <dt>Requested</dt>
        <dd>
          <time dateTime={commit.created_at}>{when(commit.created_at)}</time>
        </dd>
        {commit.expires_at && commit.state === 'awaiting_approval' && (
          <>
            <dt>Expires</dt>
            <dd>
              <time dateTime={commit.expires_at}>{when(commit.expires_at)}</time>
            </dd>
          </>
        )}
        <dt>Changes</dt>
        <dd>{counts(commit)}</dd>
        {commit.decision && (
          <>
            <dt>{commit.decision.action === 'approve' ? 'Approved by' : 'Rejected by'}</dt>
            <dd>
              <NameOf kind="people" id={commit.decision.by} />, <time dateTime={commit.decision.at}>{when(commit.decision.at)}</time>
            </dd>
            {commit.decision.comment && (
              <>
                <dt>Comment</dt>
                <dd>{commit.decision.comment}</dd>
              </>
            )}
          </>
        )}
      </dl>

      {commit.state === 'awaiting_approval' && <Decide commit={commit} onDecided={setCommit} />}

      {commit.results && commit.results.length > 0 && (
        <section aria-labelledby="results-title">
          <h2 id="results-title">Versions written</h2>
          <ul aria-label="Versions written">
            {commit.results.map((r) => (
              <li key={r.source_artifact_id}>
                <a href={artifactPath(r.artifact_id)} onClick={follow}>
                  <NameOf kind="artifacts" id={r.artifact_id} />
                </a>
                : version {r.version}
              </li>
            ))}
          </ul>
        </section>
      )}

      <section aria-labelledby="items-title">
        <h2 id="items-title">Items</h2>
        <Problem error={itemsError} />
        {items === null && !itemsError && <p role="status">Loading items…</p>}
        {items?.length === 0 && <p>{commit.state === 'previewing' ? 'The preview is being computed…' : 'No items.'}</p>}
        {items && items.length > 0 && (
          <ol class="items" aria-label="Items">
            {items.map((item) => (
              <Item key={item.source_artifact_id} item={item} />
            ))}
          </ol>
        )}
        {more && (
          <button type="button" onClick={more}>
            Show more items
          </button>
        )}
      </section>
    </article>
  );
}
