import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api } from '../../api.ts';
import { TextField } from '../../components/fields.tsx';
import { AccountCard } from './AccountCard.tsx';
import { useAccountAction } from './useAccountAction.ts';

/** Everything the account holds as one JSON file. */
export function ExportSection() {
  const action = useAccountAction([]);
  const download = () =>
    void action.run(async () => {
      const data = await api.account.export.query();
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `scheduling-account-${data.exportedAt.slice(0, 10)}.json`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      const counts = [count(data.eventTypes.length, 'event type'), count(data.bookings.length, 'booking'), count(data.leads.length, 'lead')];
      return `Downloaded: ${counts.join(', ')} and ${count(data.contacts.length, 'contact')}.`;
    });
  return (
    <AccountCard
      name="export"
      title="Your data"
      intro="Download everything your account holds as JSON: profile, event types, schedule, bookings, leads, contacts, webhook endpoints and connected calendars (without their secrets)."
      done={action.done}
      error={action.error}
    >
      <button type="button" className="btn" disabled={action.busy} onClick={download}>
        {action.busy ? 'Preparing…' : 'Download your data (JSON)'}
      </button>
    </AccountCard>
  );
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Deletes the account with all its data, after the password and a second question. */
export function DeleteSection() {
  const [password, setPassword] = useState('');
  const [asking, setAsking] = useState(false);
  const action = useAccountAction(['password']);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);

  const ask = (event: FormEvent) => {
    event.preventDefault();
    setAsking(true);
  };
  const remove = () =>
    void action.run(async () => {
      setAsking(false);
      await api.account.delete.mutate({ password });
      window.location.assign('/');
      return 'Your account has been deleted.';
    });

  return (
    <AccountCard
      name="delete"
      title="Delete account"
      intro="Deletes your account and everything in it: event types, bookings, leads, contacts, webhooks, calendars, tokens and apps. It cannot be undone; download your data first."
      error={action.error}
      done={action.done}
    >
      <form className="form" onSubmit={ask} noValidate>
        <TextField
          label="Your password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => {
            setPassword(e.target.value);
            action.clear();
          }}
          error={action.fields.password}
        />
        {asking ? (
          // biome-ignore lint/a11y/useSemanticElements: a group of two buttons, not a form field set
          <div className="confirm confirm-start" role="group" aria-label="Confirm deleting your account">
            <span className="confirm-text">Delete your account and all its data for good?</span>
            <button type="button" ref={confirmRef} className="btn btn-danger-solid btn-small" disabled={action.busy} onClick={remove}>
              Delete for good
            </button>
            <button type="button" className="btn btn-small" onClick={() => setAsking(false)}>
              Cancel
            </button>
          </div>
        ) : (
          <div className="btn-row">
            <button type="submit" className="btn btn-danger" disabled={action.busy || password === ''}>
              {action.busy ? 'Deleting…' : 'Delete account…'}
            </button>
          </div>
        )}
      </form>
    </AccountCard>
  );
}
