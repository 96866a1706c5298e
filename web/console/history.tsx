// An artifact's history (issue #37): a collection artifact's versions, a draft's revisions, each with
// who made it and how as text, and the changes between any two as a coloured unified diff (./diff, the
// commit page's). A chunk of its own, loaded when an artifact page opens: the diff library is here.
import { createTwoFilesPatch } from 'diff';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { artifactPath, type Artifact } from './browse-api';
import { Problem } from './commits';
import { Diff } from './diff';
import { NameOf } from './names';
import { WrittenBy, type Source } from './provenance';
import { usePaged } from './paged';
import { follow } from './router';

interface VersionEntry {
  version: number;
  title: string;
  content_type: string;
  content?: string;
  provenance: {
    drafted_by: string;
    last_edited_by: string;
    commit_id: string | null;
    requested_by: string;
    approved_by: string | null;
    source_artifact_id: string | null;
    source_revision: number | null;
    committed_at: string;
  };
}

interface RevisionEntry {
  revision: number;
  claimed_at: string;
  state: 'draft' | 'archived' | 'deleted';
  title?: string;
  content_type?: string;
  content?: string;
  provenance?: { updated_by: string; updated_at: string; source?: Source };
}

/** One point of the history, the same for versions and revisions. */
interface Entry {
  n: number;
  title?: string;
  content_type?: string;
  state?: string;
}

const noun = (collection: boolean) => (collection ? 'version' : 'revision');

/** JSON pretty-printed before it is compared, so a change shows as the lines it changed. */
function comparable(content: string, contentType: string | undefined): string {
  if (contentType && /json/i.test(contentType)) {
    try {
      return JSON.stringify(JSON.parse(content), null, 2) + '\n';
    } catch {
      // not JSON after all: its text
    }
  }
  return content.endsWith('\n') ? content : `${content}\n`;
}

interface Full {
  title?: string;
  content_type?: string;
  content?: string;
}

/** The unified diff from one point to another, with a title or type change said above it. */
export function changesBetween(from: Full & { n: number }, to: Full & { n: number }, what: string): { notes: string[]; diff: string } {
  const notes: string[] = [];
  if (from.title !== to.title) notes.push(`Title: “${from.title ?? ''}” → “${to.title ?? ''}”`);
  if (from.content_type !== to.content_type) notes.push(`Type: ${from.content_type ?? '—'} → ${to.content_type ?? '—'}`);
  const a = comparable(from.content ?? '', from.content_type);
  const b = comparable(to.content ?? '', to.content_type);
  const diff = a === b ? '' : createTwoFilesPatch(`${what} ${from.n}`, `${what} ${to.n}`, a, b, '', '', { context: 3 });
  return { notes, diff };
}

function useContent(base: string, collection: boolean) {
  const [cache] = useState(() => new Map<number, Promise<Full>>());
  return (n: number): Promise<Full> => {
    let found = cache.get(n);
    if (!found) {
      found = api<Full>(`${base}/${collection ? 'versions' : 'revisions'}/${n}`);
      cache.set(n, found);
      found.catch(() => cache.delete(n));
    }
    return found;
  };
}

/** The changes from `from` to `to`, read when shown. */
function Changes({ read, from, to, what }: { read: (n: number) => Promise<Full>; from: number; to: number; what: string }) {
  const [shown, setShown] = useState<{ notes: string[]; diff: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setShown(null);
    Promise.all([read(from), read(to)]).then(
      ([a, b]) => live && setShown(changesBetween({ ...a, n: from }, { ...b, n: to }, what)),
      (err: Error) => live && setError(err.message),
    );
    return () => {
      live = false;
    };
  }, [from, to]);
  if (error) return <Problem error={error} />;
  if (!shown) return <p role="status">Reading both…</p>;
  return (
    <div class="changes" data-testid="history-changes">
      {shown.notes.map((note) => (
        <p key={note} class="change-note">
          {note}
        </p>
      ))}
      {shown.diff ? (
        <Diff diff={shown.diff} label={`Changes from ${what} ${from} to ${what} ${to}`} />
      ) : (
        <p class="note">The content is the same.</p>
      )}
    </div>
  );
}

function VersionFacts({ v }: { v: VersionEntry }) {
  const p = v.provenance;
  return (
    <p class="history-who">
      Committed <time dateTime={p.committed_at}>{new Date(p.committed_at).toLocaleString()}</time>
      {p.commit_id && (
        <>
          {' in '}
          <a href={`/console/commits/${encodeURIComponent(p.commit_id)}`} onClick={follow}>
            a commit
          </a>
        </>
      )}
      {', requested by '}
      <NameOf kind="people" id={p.requested_by} />
      {p.approved_by && (
        <>
          {', approved by '}
          <NameOf kind="people" id={p.approved_by} />
        </>
      )}
      {'; drafted by '}
      <NameOf kind="people" id={p.drafted_by} />
      {p.last_edited_by !== p.drafted_by && (
        <>
          {', last edited by '}
          <NameOf kind="people" id={p.last_edited_by} />
        </>
      )}
      {p.source_artifact_id && (
        <>
          {', from the draft '}
          <a href={artifactPath(p.source_artifact_id)} onClick={follow}>
            <NameOf kind="artifacts" id={p.source_artifact_id} />
          </a>
          {p.source_revision !== null ? ` (revision ${p.source_revision})` : ''}
        </>
      )}
      .
    </p>
  );
}

function RevisionFacts({ r }: { r: RevisionEntry }) {
  if (!r.provenance) return <p class="history-who">{r.state === 'deleted' ? 'Deleted.' : ''}</p>;
  return (
    <p class="history-who">
      {r.state === 'archived' ? 'Archived, ' : 'Written '}
      <WrittenBy person={r.provenance.updated_by} at={r.provenance.updated_at} source={r.provenance.source ?? null} />.
    </p>
  );
}

/** One end of a comparison: a labelled choice among the history's numbers. */
function Pick({
  id,
  label,
  numbers,
  value,
  onPick,
}: {
  id: string;
  label: string;
  numbers: number[];
  value: number;
  onPick: (n: number) => void;
}) {
  return (
    <>
      <label for={id}>{label}</label>{' '}
      <select id={id} value={String(value)} onChange={(e) => onPick(Number((e.currentTarget as HTMLSelectElement).value))}>
        {numbers.map((n) => (
          <option key={n} value={String(n)}>
            {n}
          </option>
        ))}
      </select>
    </>
  );
}

/** The history of one artifact: newest first, each point with its changes from the one before. */
export function History({ artifact }: { artifact: Artifact }) {
  const collection = artifact.container === 'collection';
  const what = noun(collection);
  const base = `/artifacts/${encodeURIComponent(artifact.id)}`;
  const { items, error, loading, more } = usePaged<VersionEntry | RevisionEntry>(`${base}/${collection ? 'versions' : 'revisions'}`);
  const read = useContent(base, collection);
  const [open, setOpen] = useState<number | null>(null);
  const [from, setFrom] = useState<number | null>(null);
  const [to, setTo] = useState<number | null>(null);
  const [compared, setCompared] = useState<[number, number] | null>(null);
  const entries: { entry: Entry; raw: VersionEntry | RevisionEntry }[] = (items ?? []).map((raw) => ({
    raw,
    entry:
      'version' in raw
        ? { n: raw.version, title: raw.title, content_type: raw.content_type }
        : { n: raw.revision, title: raw.title, state: raw.state },
  }));
  const numbers = entries.filter((e) => e.entry.state !== 'deleted').map((e) => e.entry.n);
  const newestFirst = [...entries].reverse();
  return (
    <section aria-labelledby="history-title" class="history">
      <h2 id="history-title">History</h2>
      <Problem error={error} />
      {!error && items === null && <p role="status">Loading the history…</p>}
      {items?.length === 0 && <p>No {what}s recorded.</p>}
      {numbers.length > 1 && (
        <form
          class="compare"
          aria-label={`Compare two ${what}s`}
          onSubmit={(event) => {
            event.preventDefault();
            const a = from ?? numbers.at(-2)!;
            const b = to ?? numbers.at(-1)!;
            setCompared([Math.min(a, b), Math.max(a, b)]);
          }}
        >
          <Pick id="compare-from" label={`From ${what}`} numbers={numbers} value={from ?? numbers.at(-2)!} onPick={setFrom} />{' '}
          <Pick id="compare-to" label={`to ${what}`} numbers={numbers} value={to ?? numbers.at(-1)!} onPick={setTo} />{' '}
          <button type="submit">Compare</button>
        </form>
      )}
      {compared && (
        <div
          data-testid="compared"
          role="region"
          aria-label={`${what === 'version' ? 'Version' : 'Revision'} ${compared[0]} against ${compared[1]}`}
        >
          {compared[0] === compared[1] ? (
            <p class="note">Choose two different {what}s.</p>
          ) : (
            <Changes read={read} from={compared[0]} to={compared[1]} what={what} />
          )}
        </div>
      )}
      {newestFirst.length > 0 && (
        <ol class="history-list" reversed aria-label={`${what === 'version' ? 'Versions' : 'Revisions'}, newest first`}>
          {newestFirst.map(({ entry, raw }, i) => {
            const previous = newestFirst.slice(i + 1).find((e) => e.entry.state !== 'deleted')?.entry.n;
            return (
              <li key={entry.n} value={entry.n} data-testid="history-entry">
                <h3 class="history-head">
                  {what === 'version' ? 'Version' : 'Revision'} {entry.n}
                  {entry.title && <span class="meta"> · {entry.title}</span>}
                  {entry.state && entry.state !== 'draft' && <span class="meta"> · {entry.state}</span>}
                </h3>
                {'version' in raw ? <VersionFacts v={raw} /> : <RevisionFacts r={raw} />}
                {previous !== undefined && entry.state !== 'deleted' && (
                  <>
                    <button type="button" aria-expanded={open === entry.n} onClick={() => setOpen(open === entry.n ? null : entry.n)}>
                      {open === entry.n ? 'Hide' : 'Show'} changes from {what} {previous}
                    </button>
                    {open === entry.n && <Changes read={read} from={previous} to={entry.n} what={what} />}
                  </>
                )}
              </li>
            );
          })}
        </ol>
      )}
      {more && (
        <button type="button" disabled={loading} onClick={more}>
          Show more {what}s
        </button>
      )}
    </section>
  );
}
