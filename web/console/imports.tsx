// Bulk import in a workspace's page (issue #33): files chosen or dropped go to POST
// /workspaces/{id}/imports as multipart; the import's progress is read every second while it runs
// (GET /imports/{id}), then its report: the failed items with their reason and message, and the
// created artifacts. The workspace's recent imports are listed with their state, each one's report a
// click away. The progress bar is a <progress> element: the console's CSP allows no inline style.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api';
import { artifactPath } from './browse-api';
import { ContainerName, Problem } from './commits';
import { useLive } from './live';
import { usePaged } from './paged';
import { follow } from './router';

export type ImportState = 'running' | 'completed' | 'cancelled' | 'failed';

/** GET /imports/{id}. */
export interface Import {
  id: string;
  workflow_id: string;
  workspace_id: string;
  requested_by: string;
  source: 'json' | 'ndjson' | 'files' | 'urls';
  state: ImportState;
  total: number;
  counts: { done: number; created: number; skipped: number; failed: number; remaining: number };
  error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** GET /imports/{id}/items: one item's outcome. */
export interface ImportItem {
  seq: number;
  key: string;
  /** A file's name, a URL, a document's title, or where a bad item was in the request. */
  name: string;
  status: 'created' | 'skipped' | 'failed';
  artifact_id: string | null;
  reason: string | null;
  message: string | null;
  at: string;
}

const recentShown = 10;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export const importCounts = (i: Import) =>
  `${i.counts.done} of ${plural(i.total, 'item')} done: ${i.counts.created} created, ${i.counts.skipped} skipped, ${i.counts.failed} failed, ${i.counts.remaining} remaining`;

/** The import control, the import being watched, and the workspace's recent imports. */
export function WorkspaceImports({ workspaceId, onFinished }: { workspaceId: string; onFinished: () => void }) {
  // The import shown, and the names of the files sent with it (in item order), when this page sent it.
  const [shown, setShown] = useState<{ id: string; names?: string[] } | null>(null);
  const recent = usePaged<Import>(`/workspaces/${encodeURIComponent(workspaceId)}/imports`);
  return (
    <section class="imports" aria-labelledby="imports-title">
      <h2 id="imports-title">Import files</h2>
      <ImportForm
        workspaceId={workspaceId}
        onStarted={(started, names) => {
          setShown({ id: started.id, names });
          recent.reload();
        }}
      />
      {shown && (
        <ImportProgress
          key={shown.id}
          id={shown.id}
          names={shown.names}
          onFinished={() => {
            recent.reload();
            onFinished();
          }}
        />
      )}
      <h3 id="recent-imports-title">Recent imports</h3>
      <Problem error={recent.error} />
      {recent.items?.length === 0 && <p>No imports into this workspace yet.</p>}
      {recent.items && recent.items.length > 0 && (
        <ol class="recent-imports" aria-labelledby="recent-imports-title">
          {recent.items.slice(0, recentShown).map((i) => (
            <li key={i.id} class={`state-${i.state}`}>
              <time dateTime={i.created_at}>{new Date(i.created_at).toLocaleString()}</time>{' '}
              <span class="meta">
                {i.source} · {plural(i.total, 'item')}
              </span>{' '}
              <strong data-testid="import-state">{i.state}</strong>{' '}
              <span class="meta">
                {i.counts.created} created, {i.counts.skipped} skipped, {i.counts.failed} failed
              </span>{' '}
              <button type="button" disabled={shown?.id === i.id} onClick={() => setShown({ id: i.id })}>
                Show report<span class="visually-hidden"> of the import of {new Date(i.created_at).toLocaleString()}</span>
              </button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function ImportForm({ workspaceId, onStarted }: { workspaceId: string; onStarted: (started: Import, names: string[]) => void }) {
  const [files, setFiles] = useState<File[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const submit = (event: Event) => {
    event.preventDefault();
    if (files.length === 0) return setError('Choose one or more files to import.');
    const form = new FormData();
    for (const file of files) form.append('file', file, file.name);
    setBusy(true);
    api<Import>(`/workspaces/${encodeURIComponent(workspaceId)}/imports`, { method: 'POST', body: form }).then(
      (started) => {
        onStarted(
          started,
          files.map((f) => f.name),
        );
        setFiles([]);
        if (input.current) input.current.value = '';
        setError(null);
        setBusy(false);
      },
      (err: Error) => {
        setError(err.message);
        setBusy(false);
      },
    );
  };

  // Dropped files replace the chosen ones; the file input stays the way to choose with the keyboard.
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    const dropped = [...(event.dataTransfer?.files ?? [])];
    if (dropped.length > 0) setFiles(dropped);
  };

  return (
    <form class="import-form" aria-label="Import files" onSubmit={submit}>
      <div
        class={`drop-zone${over ? ' drop-over' : ''}`}
        data-testid="import-drop-zone"
        onDragOver={(event) => {
          event.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <label for="import-files">Files to import</label>{' '}
        <input
          id="import-files"
          ref={input}
          type="file"
          multiple
          aria-describedby="import-files-hint"
          onChange={(event) => setFiles([...((event.currentTarget as HTMLInputElement).files ?? [])])}
        />
        <p id="import-files-hint" class="meta">
          Markdown, plain text, HTML, PDF or JSON; or drop files here. Each file becomes a draft; a file imported before is skipped.
        </p>
        {files.length > 0 && (
          <p class="meta" data-testid="import-chosen">
            {plural(files.length, 'file')} chosen: {files.map((f) => f.name).join(', ')}
          </p>
        )}
      </div>
      <button type="submit" disabled={busy}>
        {busy ? 'Sending…' : 'Import'}
      </button>
      <Problem error={error} />
    </form>
  );
}

/** One import: its progress while it runs (read every second), then its report. */
function ImportProgress({ id, names, onFinished }: { id: string; names?: string[]; onFinished: () => void }) {
  const { value: imported, error } = useLive<Import>(`/imports/${encodeURIComponent(id)}`, (i) => i.state === 'running');
  // Sent from this page, it was running; else only an import seen running here finishes here.
  const wasRunning = useRef(names !== undefined);
  const [announcement, setAnnouncement] = useState('');
  const state = imported?.state;
  useEffect(() => {
    if (!imported) return;
    if (state === 'running') wasRunning.current = true;
    else if (wasRunning.current) {
      wasRunning.current = false;
      setAnnouncement(`Import ${imported.state}: ${imported.counts.created} created, ${imported.counts.failed} failed.`);
      onFinished();
    }
  }, [state]);
  return (
    <section class="import-progress" aria-labelledby={`import-${id}-title`} data-import-id={id}>
      <h3 id={`import-${id}-title`}>{names ? `Import of ${plural(names.length, 'file')}` : 'Import'}</h3>
      <p class="visually-hidden" aria-live="polite">
        {announcement}
      </p>
      <Problem error={error} />
      {!imported && !error && <p role="status">Loading…</p>}
      {imported && (
        <>
          <p class={`state-${imported.state}`}>
            State: <strong data-testid="import-progress-state">{imported.state}</strong>
          </p>
          <label for={`import-${id}-bar`}>Progress</label>{' '}
          <progress id={`import-${id}-bar`} max={Math.max(1, imported.total)} value={imported.counts.done}>
            {imported.counts.done} of {imported.total}
          </progress>{' '}
          <span data-testid="import-counts">{importCounts(imported)}</span>
          {imported.error && (
            <p class="error" role="alert">
              {imported.error}
            </p>
          )}
          {imported.state !== 'running' && <ImportReport id={id} names={names} imported={imported} />}
        </>
      )}
    </section>
  );
}

/** An item's name: its file's, when this page sent it, else its position and key. */
const itemName = (item: ImportItem, names?: string[]) => item.name || names?.[item.seq] || `Item ${item.seq + 1} (${item.key})`;

function ImportReport({ id, names, imported }: { id: string; names?: string[]; imported: Import }) {
  return (
    <>
      {imported.counts.failed > 0 && <FailedItems id={id} names={names} />}
      {imported.counts.created > 0 && <CreatedItems id={id} names={names} />}
    </>
  );
}

function FailedItems({ id, names }: { id: string; names?: string[] }) {
  const { items, error, loading, more } = usePaged<ImportItem>(`/imports/${encodeURIComponent(id)}/items?status=failed`);
  return (
    <>
      <h4 id={`import-${id}-failed`}>Failed items</h4>
      <Problem error={error} />
      {items && (
        <ul class="import-items failed-items" aria-labelledby={`import-${id}-failed`}>
          {items.map((item) => (
            <li key={item.seq}>
              <span class="item-name">{itemName(item, names)}</span> <code data-testid="item-reason">{item.reason ?? 'failed'}</code>
              {item.message && <span class="meta"> {item.message}</span>}
            </li>
          ))}
        </ul>
      )}
      {more && (
        <button type="button" disabled={loading} onClick={more}>
          Show more failed items
        </button>
      )}
    </>
  );
}

function CreatedItems({ id, names }: { id: string; names?: string[] }) {
  const { items, error, loading, more } = usePaged<ImportItem>(`/imports/${encodeURIComponent(id)}/items?status=created`);
  return (
    <>
      <h4 id={`import-${id}-created`}>Created artifacts</h4>
      <Problem error={error} />
      {items && (
        <ul class="import-items created-items" aria-labelledby={`import-${id}-created`}>
          {items.map((item) =>
            item.artifact_id ? (
              <li key={item.seq}>
                <a href={artifactPath(item.artifact_id)} onClick={follow}>
                  <ContainerName kind="artifacts" id={item.artifact_id} />
                </a>
                {names?.[item.seq] && <span class="meta"> from {names[item.seq]}</span>}
              </li>
            ) : null,
          )}
        </ul>
      )}
      {more && (
        <button type="button" disabled={loading} onClick={more}>
          Show more created artifacts
        </button>
      )}
    </>
  );
}
