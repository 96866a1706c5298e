import { useEffect, useRef, useState } from 'preact/hooks';
import { api, currentTokens, onSessionChange, setTokens, type Me, type Page, type Workspace } from './api';
import { finishSignIn, revoke, startSignIn } from './auth';
import { AwaitingCommits, CommitView } from './commits';
import { InvocationView } from './invocations';
import { navigate, usePath } from './router';

type Phase = { kind: 'signed-out'; error?: string } | { kind: 'finishing' } | { kind: 'signed-in' };

function initialPhase(): Phase {
  return location.pathname === '/console/callback' ? { kind: 'finishing' } : { kind: 'signed-out' };
}

export function App() {
  const [phase, setPhase] = useState<Phase>(initialPhase);
  const [me, setMe] = useState<Me | null>(null);
  const path = usePath();

  useEffect(() => onSessionChange((signedIn) => setPhase(signedIn ? { kind: 'signed-in' } : { kind: 'signed-out' })), []);

  useEffect(() => {
    if (phase.kind !== 'finishing') return;
    const params = new URLSearchParams(location.search);
    finishSignIn(params).then(
      ({ tokens, returnTo }) => {
        navigate(returnTo, true);
        setTokens(tokens);
      },
      (err: Error) => {
        navigate('/console/', true);
        setPhase({ kind: 'signed-out', error: err.message });
      },
    );
  }, [phase.kind]);

  // Who is signed in (GET /me); without it the console still works and says "Signed in".
  useEffect(() => {
    if (phase.kind !== 'signed-in') return setMe(null);
    api<Me>('/me').then(setMe, () => setMe(null));
  }, [phase.kind]);

  return (
    <>
      <header class="bar">
        <span class="brand">Platform console</span>
        {phase.kind === 'signed-in' && <SignOut email={me?.email} />}
      </header>
      <main>
        {phase.kind === 'finishing' && <p role="status">Signing in…</p>}
        {phase.kind === 'signed-out' && <SignIn error={phase.error} />}
        {phase.kind === 'signed-in' && <Screen path={path} me={me} />}
      </main>
    </>
  );
}

function SignIn({ error }: { error?: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <section aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in</h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <p>Sign in with your platform account to review commits and work with your workspaces.</p>
      <button
        type="button"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          void startSignIn(location.pathname + location.search).catch(() => setBusy(false));
        }}
      >
        Sign in
      </button>
    </section>
  );
}

/** The page for a path under /console/: a commit, an invocation, or the overview. */
function Screen({ path, me }: { path: string; me: Me | null }) {
  const commit = /^\/console\/commits\/([^/]+)$/.exec(path);
  if (commit) return <CommitView key={commit[1]} id={decodeURIComponent(commit[1]!)} me={me} />;
  const invocation = /^\/console\/invocations\/([^/]+)$/.exec(path);
  if (invocation) return <InvocationView key={invocation[1]} id={decodeURIComponent(invocation[1]!)} me={me} />;
  return <Home me={me} />;
}

function SignOut({ email }: { email?: string }) {
  const form = useRef<HTMLFormElement>(null);
  return (
    // Revoke the refresh token, then end the sign-in page's session with the platform's own form.
    <form
      ref={form}
      method="post"
      action="/oauth/sign-out"
      onSubmit={(event) => {
        event.preventDefault();
        const tokens = currentTokens();
        void (tokens ? revoke(tokens) : Promise.resolve()).then(() => {
          setTokens(null);
          form.current?.submit();
        });
      }}
    >
      <span class="who" data-testid="signed-in">
        {email ? `Signed in as ${email}` : 'Signed in'}
      </span>{' '}
      <button type="submit">Sign out</button>
    </form>
  );
}

function Home({ me }: { me: Me | null }) {
  return (
    <>
      <h1>Overview</h1>
      <AwaitingCommits me={me} />
      <Workspaces />
    </>
  );
}

function Workspaces() {
  const [workspaces, setWorkspaces] = useState<Workspace[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<Page<Workspace>>('/workspaces?limit=100').then(
      (page) => setWorkspaces(page.items),
      (err: Error) => setError(err.message),
    );
  }, []);
  return (
    <section aria-labelledby="workspaces-title">
      <h2 id="workspaces-title">Workspaces</h2>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!error && workspaces === null && <p role="status">Loading…</p>}
      {workspaces?.length === 0 && <p>You have no workspaces yet.</p>}
      {workspaces && workspaces.length > 0 && (
        <ul class="workspaces" aria-label="Your workspaces">
          {workspaces.map((w) => (
            <li key={w.id}>{w.name}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
