import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage, errorStatus, setCsrfToken, signInUrl } from '../api.ts';
import { BrandMark, LoadFailed, Spinner } from '../components/ui.tsx';
import { GrantedAppsSection } from './developer/GrantedAppsSection.tsx';
import { OAuthAppsSection } from './developer/OAuthAppsSection.tsx';
import { TokensSection } from './developer/TokensSection.tsx';
import { WebhooksSection } from './developer/WebhooksSection.tsx';
import type { SessionUser } from './developer/types.ts';

type State =
  | { kind: 'loading' }
  | { kind: 'ready'; user: SessionUser; csrfToken: string }
  | { kind: 'error'; message: string };

/** /app/settings/developer: personal access tokens, OAuth apps, the apps the user has authorized, and webhooks. */
export function DeveloperSettingsPage() {
  const [state, setState] = useState<State>({ kind: 'loading' });

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

  useEffect(() => {
    document.title = 'Developer settings · Scheduling';
    void load();
  }, [load]);

  /** A call answered 401: the session ended (signed out elsewhere, expired); sign in again. */
  const onSessionLost = useCallback((error: unknown) => {
    if (errorStatus(error) === 401) window.location.assign(signInUrl());
  }, []);

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <a className="brand" href="/app/settings/developer">
            <BrandMark />
            <span>Scheduling</span>
          </a>
          {state.kind === 'ready' && (
            <div className="topbar-user">
              <span data-testid="signed-in-as">{state.user.email}</span>
              <PlanBadge plan={state.user.plan} />
              <form method="post" action="/logout">
                <input type="hidden" name="csrf" value={state.csrfToken} />
                <input type="hidden" name="next" value={window.location.pathname} />
                <button type="submit" className="btn btn-small">
                  Sign out
                </button>
              </form>
            </div>
          )}
        </div>
      </header>
      <main id="main" className="page">
        <div className="page-header">
          <h1>Developer settings</h1>
          <p>
            Create tokens for scripts and integrations, register OAuth apps that act on behalf of other people, and
            review the apps you have given access to your account, and have events POSTed to your own endpoints.
          </p>
        </div>
        {state.kind === 'loading' && <Spinner label="Loading your settings…" />}
        {state.kind === 'error' && (
          <LoadFailed what={<strong>Your settings</strong>} reason={state.message} onRetry={() => void load()} />
        )}
        {state.kind === 'ready' && (
          <div className="stack">
            {state.user.plan !== 'team' && (
              <div className="notice notice-info" data-testid="plan-notice">
                <strong>API access is part of the Team plan.</strong> Your account is on the{' '}
                {planName(state.user.plan)} plan, so you cannot create personal access tokens or OAuth apps. You can
                still review and revoke anything listed here.
              </div>
            )}
            <TokensSection canCreate={state.user.plan === 'team'} onSessionLost={onSessionLost} />
            <OAuthAppsSection canCreate={state.user.plan === 'team'} onSessionLost={onSessionLost} />
            <GrantedAppsSection onSessionLost={onSessionLost} />
            <WebhooksSection canCreate={state.user.plan === 'team'} onSessionLost={onSessionLost} />
          </div>
        )}
      </main>
    </>
  );
}

function planName(plan: SessionUser['plan']): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}

function PlanBadge({ plan }: { plan: SessionUser['plan'] }) {
  return <span className={`badge ${plan === 'team' ? 'badge-accent' : 'badge-neutral'}`}>{planName(plan)} plan</span>;
}
