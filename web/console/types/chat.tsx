// The console's page body for an application/vnd.platform.chat+json artifact (issue #36): the
// conversation, each answer's citations as links to the artifacts, and a box to ask the next
// question. The answer streams in as the model writes it (GET .../turns/{turn}/stream, read with
// fetch: EventSource cannot send the bearer token); everything the API says is shown as text.
import { Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, currentTokens, type Me } from '../api';
import type { Artifact } from '../browse-api';
import { Problem } from '../commits';
import { follow } from '../router';

interface Citation {
  artifact_id: string;
  title: string;
  ref?: number;
}

interface Turn {
  turn_id: string;
  role: 'user' | 'assistant';
  content: string;
  citations?: Citation[];
  mode?: 'llm' | 'extractive' | 'none';
  note?: string;
  by?: string;
  at: string;
}

/** POST /artifacts/{id}/turns and GET .../turns/{turn}. */
interface TurnState {
  turn_id: string;
  status: 'answering' | 'writing' | 'completed' | 'failed';
  turns?: Turn[];
  partial?: string;
  error?: { type: string; message: string };
  poll: string;
  stream: string;
}

interface Pending {
  question: string;
  answer: string;
}

/** GET /artifacts/{id}/turns: the chat's revision and the answers being written now. */
interface Activity {
  revision: number;
  running: { turn_id: string; question: string; poll: string; stream: string }[];
}

/** How often an open chat looks for new turns and answers being written (by anyone, in any tab). */
const livePollMs = 3000;
/** Answers of others followed at once (each holds one of the person's event streams). */
const followedAtMost = 3;

const turnsOf = (artifact: Artifact): Turn[] => {
  try {
    const content = JSON.parse(artifact.content) as { turns?: Turn[] };
    return Array.isArray(content.turns) ? content.turns : [];
  } catch {
    return [];
  }
};

const articlePath = (id: string) => `/console/artifacts/${encodeURIComponent(id)}`;

/** A bearer token good for a while (api() refreshes one about to expire). */
async function bearer(): Promise<string> {
  const tokens = currentTokens();
  if (!tokens || tokens.expiresAt - Date.now() < 30_000) await api<Me>('/me');
  const access = currentTokens()?.access;
  if (!access) throw new ApiError(401, 'Not signed in.');
  return access;
}

/** Follows a turn's answer: `onText` sees it grow; resolves with the ended turn (null when the stream ended first). */
async function followTurn(path: string, onText: (text: string) => void, stop: AbortSignal): Promise<TurnState | null> {
  const res = await fetch(path, {
    headers: { authorization: `Bearer ${await bearer()}`, accept: 'text/event-stream' },
    credentials: 'omit',
    cache: 'no-store',
    signal: stop,
  });
  if (!res.ok || !res.body) {
    const problem = (await res.json().catch(() => ({}))) as { detail?: string };
    throw new ApiError(res.status, problem.detail ?? `HTTP ${res.status}`);
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return null;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!event || data === undefined) continue;
      if (event === 'delta') {
        const { offset, text: more } = JSON.parse(data) as { offset: number; text: string };
        text = text.slice(0, offset) + more;
        onText(text);
      } else if (event === 'turn') {
        await reader.cancel().catch(() => undefined);
        return JSON.parse(data) as TurnState;
      }
    }
  }
}

/** An answer's text with its `[n]` markers as links to the artifacts they cite. */
function Cited({ text, citations }: { text: string; citations: Citation[] }) {
  const byRef = new Map(citations.filter((c) => c.ref !== undefined).map((c) => [c.ref!, c]));
  const parts = text.split(/(\[\d{1,3}\])/);
  return (
    <>
      {parts.map((part, i) => {
        const m = /^\[(\d{1,3})\]$/.exec(part);
        const cited = m ? byRef.get(Number(m[1])) : undefined;
        return cited ? (
          <a key={i} href={articlePath(cited.artifact_id)} onClick={follow} title={cited.title} class="chat-ref">
            {part}
          </a>
        ) : (
          part
        );
      })}
    </>
  );
}

function TurnItem({ turn }: { turn: Turn }) {
  const citations = turn.citations ?? [];
  return (
    <li class={`chat-turn chat-${turn.role}`} data-testid="chat-turn" data-role={turn.role} data-mode={turn.mode}>
      <p class="chat-who">
        {turn.role === 'user' ? (turn.by ? `Question (${turn.by})` : 'Question') : 'Answer'}
        {turn.role === 'assistant' && turn.mode === 'extractive' && ' — top passages, not a synthesized answer'}
        {' · '}
        <time dateTime={turn.at}>{new Date(turn.at).toLocaleString()}</time>
      </p>
      <p class="chat-text">{turn.role === 'assistant' ? <Cited text={turn.content} citations={citations} /> : turn.content}</p>
      {citations.length > 0 && (
        <p class="chat-sources">
          Sources:{' '}
          {citations.map((c, i) => (
            <span key={`${c.artifact_id}-${i}`}>
              {i > 0 && ', '}
              <a href={articlePath(c.artifact_id)} onClick={follow} data-testid="chat-citation">
                {c.ref !== undefined ? `[${c.ref}] ` : ''}
                {c.title}
              </a>
            </span>
          ))}
        </p>
      )}
    </li>
  );
}

export function ChatBody({ artifact }: { artifact: Artifact }) {
  const [turns, setTurns] = useState<Turn[]>(() => turnsOf(artifact));
  const [pending, setPending] = useState<Pending | null>(null);
  /** Answers being written that this page did not ask for (another person, tab or client), by turn id. */
  const [others, setOthers] = useState<Record<string, Pending>>({});
  const [question, setQuestion] = useState('');
  const [error, setError] = useState<string | null>(null);
  const stop = useRef<AbortController | null>(null);
  const revision = useRef(artifact.revision);
  /**
   * This page's own turn while it is in flight: 'asking' until the API names it (a turn listed meanwhile
   * may be it, and is not picked up), then its id; null when there is none.
   */
  const mine = useRef<string | null>(null);
  const followed = useRef(new Set<string>());
  useEffect(() => () => stop.current?.abort(), []);
  useEffect(() => {
    revision.current = artifact.revision;
    setTurns(turnsOf(artifact));
  }, [artifact]);
  const writable = artifact.container === 'workspace' && !artifact.archived_at;
  const chatPath = `/artifacts/${encodeURIComponent(artifact.id)}`;

  /** The chat as stored now: other turns may have been added meanwhile. */
  const reload = async () => {
    const fresh = await api<Artifact>(chatPath);
    revision.current = fresh.revision;
    setTurns(turnsOf(fresh));
  };

  // Live: a new revision (someone's turn, an edit) is shown, and an answer being written is followed as it grows.
  useEffect(() => {
    const leave = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let following = 0;
    const pickUp = (r: Activity['running'][number]) => {
      followed.current.add(r.turn_id);
      following++;
      const show = (answer: string) => setOthers((o) => ({ ...o, [r.turn_id]: { question: r.question, answer } }));
      show('');
      void followTurn(r.stream, show, leave.signal)
        .catch(() => null)
        .finally(() => {
          following--;
          setOthers(({ [r.turn_id]: _, ...rest }) => rest);
          if (!leave.signal.aborted) void reload().catch(() => undefined);
        });
    };
    const look = async () => {
      if (document.visibilityState !== 'hidden') {
        try {
          const now = await api<Activity>(`${chatPath}/turns`);
          if (leave.signal.aborted) return;
          // While this page's own turn is in flight, it reloads the chat itself once the turn is written.
          if (now.revision !== revision.current && mine.current === null) await reload();
          for (const r of now.running)
            if (mine.current !== 'asking' && r.turn_id !== mine.current && !followed.current.has(r.turn_id))
              if (following < followedAtMost) pickUp(r);
        } catch {
          // The next look tries again (the page shows what it has).
        }
      }
      if (!leave.signal.aborted) timer = setTimeout(() => void look(), livePollMs);
    };
    void look();
    return () => {
      leave.abort();
      clearTimeout(timer);
    };
  }, [artifact.id]);

  const ask = async (event: Event) => {
    event.preventDefault();
    const message = question.trim();
    if (!message || pending) return;
    setError(null);
    setPending({ question: message, answer: '' });
    stop.current = new AbortController();
    mine.current = 'asking';
    try {
      let state = await api<TurnState>(`${chatPath}/turns`, {
        method: 'POST',
        body: JSON.stringify({ message, wait_seconds: 0 }),
      });
      mine.current = state.turn_id;
      followed.current.add(state.turn_id);
      setQuestion('');
      if (state.status !== 'completed' && state.status !== 'failed') {
        const ended = await followTurn(state.stream, (answer) => setPending({ question: message, answer }), stop.current.signal);
        state = ended ?? (await api<TurnState>(state.poll));
      }
      if (state.status === 'failed') setError(`The turn was not added: ${state.error?.message ?? 'it failed'}`);
      else if (state.status !== 'completed') setError('The answer is taking long; reload the page to see it once it is written.');
      await reload();
    } catch (err) {
      if (!stop.current.signal.aborted) setError((err as Error).message);
    } finally {
      mine.current = null;
      setPending(null);
    }
  };

  return (
    <div class="chat" data-testid="chat">
      {turns.length === 0 && !pending && Object.keys(others).length === 0 && <p>No questions yet.</p>}
      <ol class="chat-turns" aria-label="Conversation">
        {turns.map((t) => (
          <TurnItem key={`${t.turn_id}-${t.role}`} turn={t} />
        ))}
        {Object.entries(others).map(([id, other]) => (
          <Fragment key={id}>
            <li class="chat-turn chat-user" data-role="user">
              <p class="chat-who">Question (being answered)</p>
              <p class="chat-text">{other.question}</p>
            </li>
            <li class="chat-turn chat-assistant" data-testid="chat-streaming" aria-live="polite" aria-busy="true">
              <p class="chat-who">Answer (being written)</p>
              <p class="chat-text">{other.answer || '…'}</p>
            </li>
          </Fragment>
        ))}
        {pending && (
          <>
            <li class="chat-turn chat-user" data-role="user">
              <p class="chat-who">Question</p>
              <p class="chat-text">{pending.question}</p>
            </li>
            <li class="chat-turn chat-assistant" data-testid="chat-streaming" aria-live="polite" aria-busy="true">
              <p class="chat-who">Answer (being written)</p>
              <p class="chat-text">{pending.answer || '…'}</p>
            </li>
          </>
        )}
      </ol>
      <Problem error={error} />
      {writable ? (
        <form onSubmit={ask} class="chat-ask">
          <label for="chat-question">Your question</label>
          <textarea
            id="chat-question"
            value={question}
            maxLength={4000}
            rows={3}
            onInput={(e) => setQuestion((e.currentTarget as HTMLTextAreaElement).value)}
            disabled={pending !== null}
          />
          <button type="submit" disabled={pending !== null || !question.trim()}>
            Ask
          </button>
        </form>
      ) : (
        <p>This chat is {artifact.archived_at ? 'archived' : 'in a collection'}: it cannot take new questions.</p>
      )}
    </div>
  );
}
