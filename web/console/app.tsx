import { useEffect, useRef, useState } from 'preact/hooks';
import { api, currentTokens, onSessionChange, setTokens, type Page, type Workspace } from './api';
import { finishSignIn, revoke, startSignIn } from './auth';

type Phase = { kind: 'signed-out'; error?: string } | { kind: 'finishing' } | { kind: 'signed-in' };

function initialPhase(): Phase {
  return location.pathname === '/console/callback' ? { kind: 'finishing' } : { kind: 'signed-out' };
}

export function App() {
  const [phase, setPhase] = useState<Phase>(initialPhase);

  useEffect(() => onSessionChange((signedIn) => setPhase(signedIn ? { kind: 'signed-in' } : { kind: 'signed-out' })), []);

  useEffect(() => {
    if (phase.kind !== 'finishing') return;
    const params = new URLSearchParams(location.search);
    finishSignIn(params).then(
      ({ tokens, returnTo }) => {
        history.replaceState(null, '', returnTo);
        setTokens(tokens);
      },
      (err: Error) => {
        history.replaceState(null, '', '/console/');
        setPhase({ kind: 'signed-out', error: err.message });
      },
    );
  }, [phase.kind]);

  return (
    <>
      <header class="bar">
        <span class="brand">Platform console</span>
        {phase.kind === 'signed-in' && <SignOut />}
      </header>
      <main>
        {phase.kind === 'finishing' && <p role="status">Signing in…</p>}
        {phase.kind === 'signed-out' && <SignIn error={phase.error} />}
        {phase.kind === 'signed-in' && <Home />}
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

function SignOut() {
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
        Signed in
      </span>{' '}
      <button type="submit">Sign out</button>
    </form>
  );
}

function Home() {
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
      <h1 id="workspaces-title">Workspaces</h1>
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
