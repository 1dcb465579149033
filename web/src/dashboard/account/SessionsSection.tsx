import { useState } from 'react';
import { api, signInUrl } from '../../api.ts';
import { AccountCard } from './AccountCard.tsx';
import { useAccountAction } from './useAccountAction.ts';

/** Ends every session of the account (other browsers, a forgotten computer), this one too unless kept. */
export function SessionsSection() {
  const [keepCurrent, setKeepCurrent] = useState(true);
  const action = useAccountAction([]);

  const signOut = () =>
    void action.run(async () => {
      const { signedOutSessions } = await api.account.signOutEverywhere.mutate({ keepCurrent });
      if (!keepCurrent) {
        window.location.assign(signInUrl());
        return null;
      }
      return signedOutSessions === 0
        ? 'No other session was signed in.'
        : `Signed out of ${signedOutSessions === 1 ? '1 other session' : `${signedOutSessions} other sessions`}.`;
    });

  return (
    <AccountCard
      name="sessions"
      title="Sessions"
      intro="Signed in somewhere you no longer use? Sign out everywhere at once. API tokens and authorized apps are managed in the developer settings."
      done={action.done}
      error={action.error}
    >
      <div className="form">
        <label className="choice">
          <input type="checkbox" checked={keepCurrent} onChange={(e) => setKeepCurrent(e.target.checked)} />
          <span className="choice-text">Stay signed in on this browser</span>
        </label>
        <div className="btn-row">
          <button type="button" className="btn btn-danger" disabled={action.busy} onClick={signOut}>
            {action.busy ? 'Signing out…' : 'Sign out everywhere'}
          </button>
        </div>
      </div>
    </AccountCard>
  );
}
