// What the settings sections share: a list read from the API, and a removal that asks first.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api';
import { offeredScopes } from './settings-scopes';

/**
 * A secret shown once (a new API key, a relay's command): its box takes the focus, and "copy" puts
 * `text` on the clipboard, or, when the browser refuses, selects the field so the keyboard can copy it.
 */
export function useShownOnce<E extends HTMLInputElement | HTMLTextAreaElement>(text: string, what: string) {
  const [copied, setCopied] = useState<string | null>(null);
  const field = useRef<E>(null);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.focus(), [text]);
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setCopied('Copied to the clipboard.'),
      () => {
        field.current?.select();
        setCopied(`Copying failed: ${what} is selected, copy it with your keyboard.`);
      },
    );
  return { copied, field, box, copy };
}

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

/** A list the page reads with GET `path` ({items}), and reads again after a change. */
export function useItems<T>(path: string) {
  const [items, setItems] = useState<T[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = () =>
    api<{ items: T[] }>(path).then(
      (page) => setItems(page.items),
      (err: Error) => setError(err.message),
    );
  useEffect(() => {
    void reload();
  }, [path]);
  return { items, error, setError, reload };
}

/**
 * A destructive button that asks first: the first press shows the question, with the button that does
 * it (focused) and Cancel; Escape cancels too. `name` is the button's accessible name ("Revoke key
 * Deploy"), `question` what is asked, `yes` the confirming button's text.
 */
export function ConfirmButton(props: { name: string; label: string; question: string; yes: string; onConfirm: () => Promise<void> }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirm.current?.focus();
  }, [asking]);
  const cancel = () => {
    setAsking(false);
    setTimeout(() => opener.current?.focus());
  };
  if (!asking)
    return (
      <button type="button" ref={opener} aria-label={props.name} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={props.question} onKeyDown={(e) => e.key === 'Escape' && cancel()}>
      <span>{props.question}</span>{' '}
      <button
        type="button"
        class="danger"
        ref={confirm}
        disabled={busy}
        onClick={() => {
          setBusy(true);
          void props.onConfirm().finally(() => setBusy(false));
        }}
      >
        {props.yes}
      </button>{' '}
      <button type="button" disabled={busy} onClick={cancel}>
        Cancel
      </button>
    </span>
  );
}

/** A section's list: loading, empty, or a table with its caption, its columns and an unnamed actions column. */
export function ItemsTable<T>(props: {
  items: T[] | null;
  error: string | null;
  loading: string;
  empty: string;
  caption: string;
  columns: string[];
  row: (item: T) => ComponentChildren;
}) {
  const { items } = props;
  if (items === null) return props.error ? null : <p role="status">{props.loading}</p>;
  if (items.length === 0) return <p>{props.empty}</p>;
  return (
    <div class="table-scroll">
      <table class="settings-table">
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col" key={column}>
                {column}
              </th>
            ))}
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>{items.map(props.row)}</tbody>
      </table>
    </div>
  );
}

/** The filters of a key or a server credential (SPEC §2.6), in words. */
export interface ResourceFilters {
  workspaces: '*' | string[];
  collections: '*' | string[];
}

const count = (ids: '*' | string[], what: string) =>
  ids === '*' ? `all ${what}` : `${ids.length} ${ids.length === 1 ? what.slice(0, -1) : what}`;

export const reach = (filters: ResourceFilters) =>
  filters.workspaces === '*' && filters.collections === '*'
    ? 'everything you can reach'
    : `${count(filters.workspaces, 'workspaces')}, ${count(filters.collections, 'collections')}`;

/** The set with `item` added, or taken out when it was there. */
export function toggled<T>(set: ReadonlySet<T>, item: T): Set<T> {
  const next = new Set(set);
  if (!next.delete(item)) next.add(item);
  return next;
}

/** The scopes a form sends: the ticked ones, in the API's order, then the content-type scopes typed. */
export const scopesOf = (chosen: ReadonlySet<string>, fine: string) => [
  ...offeredScopes.map(([s]) => s).filter((s) => chosen.has(s)),
  ...fine.split(/\s+/).filter(Boolean),
];

/**
 * Every scope the API knows (settings-scopes.ts), each a checkbox with what it grants, and a field for
 * content-type scopes (SPEC §2.8), which the API judges. `id` tells two forms' fields apart.
 */
export function ScopeChoices(props: {
  id: string;
  chosen: ReadonlySet<string>;
  onToggle: (scope: string) => void;
  fine: string;
  onFine: (fine: string) => void;
}) {
  return (
    <fieldset>
      <legend>Scopes</legend>
      {offeredScopes.map(([scope, what]) => (
        <label key={scope} class="scope">
          <input type="checkbox" checked={props.chosen.has(scope)} onChange={() => props.onToggle(scope)} /> {scope}{' '}
          <span class="note">({what})</span>
        </label>
      ))}
      <p class="field">
        <label for={`${props.id}-fine`}>Content-type scopes</label>{' '}
        <input
          id={`${props.id}-fine`}
          type="text"
          value={props.fine}
          maxLength={2000}
          spellcheck={false}
          autoComplete="off"
          aria-describedby={`${props.id}-fine-hint`}
          onInput={(e) => props.onFine(e.currentTarget.value)}
        />{' '}
        <span class="note" id={`${props.id}-fine-hint`}>
          Optional, separated by spaces: <code>resource|tool|prompt:&lt;content type&gt;:&lt;read|write|manage|invoke&gt;</code>, such as{' '}
          <code>resource:text/*:read</code>.
        </span>
      </p>
    </fieldset>
  );
}

/**
 * A secret shown once (a new API key, a server credential's secret): a region that takes the focus,
 * says it will not be seen again, and offers Copy and "I have copied it". It lives only in the memory
 * of the component that shows it, gone once dismissed or the page is left.
 */
export function SecretShownOnce(props: {
  id: string;
  title: ComponentChildren;
  label: string;
  copyLabel: string;
  secret: string;
  what: string;
  children?: ComponentChildren;
  onDone: () => void;
}) {
  const { copied, field, box, copy } = useShownOnce<HTMLInputElement>(props.secret, props.what);
  return (
    <div class="new-key" role="region" aria-labelledby={props.id} tabIndex={-1} ref={box}>
      <h3 id={props.id}>{props.title}</h3>
      <p class="warning">
        <strong>Copy it now: you will not see it again.</strong> The platform keeps only a hash of it.
      </p>
      {props.children}
      <label>
        {props.label}{' '}
        <input
          ref={field}
          type="text"
          class="secret"
          readOnly
          value={props.secret}
          spellcheck={false}
          autoComplete="off"
          onFocus={(e) => e.currentTarget.select()}
        />
      </label>{' '}
      <button type="button" onClick={() => void copy()}>
        {props.copyLabel}
      </button>{' '}
      <button type="button" onClick={props.onDone}>
        I have copied it
      </button>
      <p role="status">{copied}</p>
    </div>
  );
}
