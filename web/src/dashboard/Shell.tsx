import { type MouseEvent, useCallback, useEffect, useMemo, useState } from 'react';
import { api, errorMessage, errorStatus, setCsrfToken, signInUrl } from '../api.ts';
import { BrandMark, LoadFailed, Spinner } from '../components/ui.tsx';
import { AccountSettingsPage } from './AccountSettingsPage.tsx';
import { AvailabilityPage } from './AvailabilityPage.tsx';
import { BookingsPage } from './BookingsPage.tsx';
import { CalendarsPage } from './calendars/CalendarsPage.tsx';
import { ContactsPage } from './ContactsPage.tsx';
import { DeveloperSettingsPage } from './DeveloperSettingsPage.tsx';
import { EventTypesPage } from './EventTypesPage.tsx';
import { planName } from './format.ts';
import { LeadsPage } from './LeadsPage.tsx';
import { followLink, PAGES, type PagePath } from './router.ts';
import { type DashboardSession, SessionContext, type SessionUser } from './session.ts';

type State = { kind: 'loading' } | { kind: 'ready'; user: SessionUser; csrfToken: string } | { kind: 'error'; message: string };

const PAGE_COMPONENTS: Record<PagePath, () => React.JSX.Element> = {
  '/app/bookings': BookingsPage,
  '/app/event-types': EventTypesPage,
  '/app/availability': AvailabilityPage,
  '/app/calendars': CalendarsPage,
  '/app/leads': LeadsPage,
  '/app/contacts': ContactsPage,
  '/app/settings/account': AccountSettingsPage,
  '/app/settings/developer': DeveloperSettingsPage,
};

/** The signed-in dashboard at /app/…: navigation, who is signed in, sign out, and the page the address names. */
export function Shell({ page }: { page: PagePath }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [menuOpen, setMenuOpen] = useState(false);

  const load = useCallback(async () => {
    try {
      const session = await api.session.current.query();
      if (!session) {
        window.location.assign(signInUrl());
        return;
      }
      setCsrfToken(session.csrfToken);
      setState({ kind: 'ready', user: session.user, csrfToken: session.csrfToken });
    } catch (error) {
      setState({ kind: 'error', message: errorMessage(error) });
    }
  }, []);
  useEffect(() => void load(), [load]);

  const label = PAGES.find((entry) => entry.path === page)?.label ?? 'Dashboard';
  useEffect(() => {
    document.title = `${label} · Scheduling`;
    setMenuOpen(false);
  }, [label]);

  const session = useMemo<DashboardSession | null>(
    () =>
      state.kind === 'ready'
        ? {
            user: state.user,
            csrfToken: state.csrfToken,
            onSessionLost: (error) => {
              if (errorStatus(error) === 401) window.location.assign(signInUrl());
            },
            updateUser: (changes) =>
              setState((current) => (current.kind === 'ready' ? { ...current, user: { ...current.user, ...changes } } : current)),
          }
        : null,
    [state],
  );
  const Page = PAGE_COMPONENTS[page];

  const follow = (event: MouseEvent<HTMLAnchorElement>, path: string) => {
    if (followLink(event, path)) document.getElementById('main')?.focus();
  };

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <a className="brand" href="/app/bookings" onClick={(event) => follow(event, '/app/bookings')}>
            <BrandMark />
            <span>Scheduling</span>
          </a>
          <button
            type="button"
            className="btn btn-small menu-toggle"
            aria-expanded={menuOpen}
            aria-controls="app-nav"
            onClick={() => setMenuOpen((open) => !open)}
          >
            Menu
          </button>
          <nav id="app-nav" aria-label="Dashboard" className={`app-nav${menuOpen ? ' open' : ''}`}>
            {PAGES.map((entry) => (
              <a
                key={entry.path}
                href={entry.path}
                aria-current={entry.path === page ? 'page' : undefined}
                onClick={(event) => follow(event, entry.path)}
              >
                {entry.label}
              </a>
            ))}
          </nav>
          {state.kind === 'ready' && (
            <div className={`topbar-user${menuOpen ? ' open' : ''}`}>
              <span data-testid="signed-in-as">{state.user.email}</span>
              <span className={`badge ${state.user.plan === 'team' ? 'badge-accent' : 'badge-neutral'}`}>{planName(state.user.plan)} plan</span>
              <form method="post" action="/logout">
                <input type="hidden" name="csrf" value={state.csrfToken} />
                <input type="hidden" name="next" value="/app" />
                <button type="submit" className="btn btn-small">
                  Sign out
                </button>
              </form>
            </div>
          )}
        </div>
      </header>
      <main id="main" className="page" tabIndex={-1}>
        {state.kind === 'loading' && <Spinner label="Loading your dashboard…" />}
        {state.kind === 'error' && <LoadFailed what={<strong>Your dashboard</strong>} reason={state.message} onRetry={() => void load()} />}
        {session && (
          <SessionContext.Provider value={session}>
            <Page key={page} />
          </SessionContext.Provider>
        )}
      </main>
    </>
  );
}
