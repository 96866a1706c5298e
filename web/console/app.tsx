import { useEffect, useRef, useState } from 'preact/hooks';
import { api, currentTokens, onSessionChange, setTokens, type Me } from './api';
import { finishSignIn, revoke, startSignIn } from './auth';
import { ArtifactView } from './artifact';
import { CollectionView, WorkspacesList, WorkspaceView } from './browse';
import { AwaitingCommits, CommitView } from './commits';
import { HostsView } from './hosts';
import { InvocationView } from './invocations';
import { follow, navigate, usePath } from './router';
import { SearchPage } from './search-route';
import { SettingsView } from './settings';
import { ThemeChoice } from './theme';

type Phase = { kind: 'signed-out'; error?: string } | { kind: 'resuming' } | { kind: 'finishing' } | { kind: 'signed-in' };

// The tokens live in memory only, so a reload loses them: a tab that was signed in signs in again by
// itself (the sign-in page's own session usually sends it straight back). Only this flag is stored.
const resumeKey = 'platform-console.resume';

function initialPhase(): Phase {
  if (location.pathname === '/console/callback') return { kind: 'finishing' };
  return sessionStorage.getItem(resumeKey) ? { kind: 'resuming' } : { kind: 'signed-out' };
}

export function App() {
  const [phase, setPhase] = useState<Phase>(initialPhase);
  const [me, setMe] = useState<Me | null>(null);
  const path = usePath();

  useEffect(
    () =>
      onSessionChange((signedIn) => {
        if (signedIn) sessionStorage.setItem(resumeKey, '1');
        else sessionStorage.removeItem(resumeKey);
        setPhase(signedIn ? { kind: 'signed-in' } : { kind: 'signed-out' });
      }),
    [],
  );

  useEffect(() => {
    if (phase.kind !== 'resuming') return;
    sessionStorage.removeItem(resumeKey); // set again once signed in: a failed resume is not tried again
    startSignIn(location.pathname + location.search).catch((err: Error) => setPhase({ kind: 'signed-out', error: err.message }));
  }, [phase.kind]);

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
        {phase.kind === 'signed-in' && (
          <nav aria-label="Console">
            <a href="/console/" onClick={follow} aria-current={path === '/console/' ? 'page' : undefined}>
              Overview
            </a>{' '}
            <a href="/console/search" onClick={follow} aria-current={path === '/console/search' ? 'page' : undefined}>
              Search
            </a>{' '}
            <a href="/console/hosts" onClick={follow} aria-current={path === '/console/hosts' ? 'page' : undefined}>
              Hosts
            </a>{' '}
            <a href="/console/settings" onClick={follow} aria-current={path === '/console/settings' ? 'page' : undefined}>
              Settings
            </a>
          </nav>
        )}
        <ThemeChoice />
        {phase.kind === 'signed-in' && <SignOut email={me?.email} />}
      </header>
      <main>
        {(phase.kind === 'finishing' || phase.kind === 'resuming') && <p role="status">Signing in…</p>}
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

/** The page for a path under /console/: `/console/<kind>/<id>`, settings, or the overview. */
function Screen({ path, me }: { path: string; me: Me | null }) {
  if (path === '/console/settings') return <SettingsView me={me} />;
  if (path === '/console/hosts') return <HostsView />;
  if (path === '/console/search') return <SearchPage />;
  const [, kind, raw] = /^\/console\/([a-z]+)\/([^/]+)$/.exec(path) ?? [];
  const id = raw ? decodeURIComponent(raw) : '';
  if (kind === 'commits') return <CommitView key={id} id={id} me={me} />;
  if (kind === 'invocations') return <InvocationView key={id} id={id} me={me} />;
  if (kind === 'workspaces') return <WorkspaceView key={id} id={id} />;
  if (kind === 'collections') return <CollectionView key={id} id={id} />;
  if (kind === 'artifacts') return <ArtifactView key={id} id={id} />;
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
      <WorkspacesList />
    </>
  );
}
