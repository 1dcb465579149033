import { type FormEvent, useId, useState } from 'react';
import { api, errorMessage } from '../../api.ts';
import { TextField } from '../../components/fields.tsx';
import { ErrorNotice } from '../../components/ui.tsx';
import { useSession } from '../session.ts';
import type { Connection } from './types.ts';

type Kind = Connection['kind'];

const KINDS: { kind: Kind; title: string; text: string }[] = [
  { kind: 'ics', title: 'iCalendar feed', text: 'A secret address from Google, Outlook, iCloud, Fastmail or Nextcloud. Read-only.' },
  { kind: 'caldav', title: 'CalDAV account', text: 'iCloud, Fastmail, Nextcloud or Radicale, with an app password. Can also receive bookings.' },
];

/** The fields of both kinds; only those of the chosen kind are sent. */
interface Fields {
  url: string;
  serverUrl: string;
  username: string;
  password: string;
  name: string;
}

/** What is missing before anything is sent, as a sentence; null when the chosen kind's fields are there. */
function missing(kind: Kind, fields: Fields): string | null {
  if (kind === 'ics') return fields.url.trim() ? null : 'Enter the address of the feed.';
  if (!fields.serverUrl.trim()) return 'Enter the address of the CalDAV server.';
  if (!fields.username.trim() || !fields.password) return 'Enter the username and the app password.';
  return null;
}

function input(kind: Kind, fields: Fields) {
  const name = fields.name.trim() || undefined;
  if (kind === 'ics') return { kind, url: fields.url.trim(), name };
  return { kind, serverUrl: fields.serverUrl.trim(), username: fields.username.trim(), password: fields.password, name };
}

/** Connects a feed or a CalDAV account; the API's refusal is shown as it says it. */
export function ConnectCalendarForm(props: { onCancel: () => void; onConnected: (connection: Connection) => void }) {
  const { onSessionLost } = useSession();
  const [kind, setKind] = useState<Kind>('ics');
  const [fields, setFields] = useState<Fields>({ url: '', serverUrl: '', username: '', password: '', name: '' });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const titleId = useId();
  const set = (change: Partial<Fields>) => setFields((current) => ({ ...current, ...change }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    const problem = missing(kind, fields);
    if (problem) return setError(problem);
    setBusy(true);
    setError(null);
    try {
      props.onConnected(await api.calendars.create.mutate(input(kind, fields)));
    } catch (caught) {
      onSessionLost(caught);
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="form form-panel" onSubmit={submit} noValidate aria-labelledby={titleId}>
      <h3 id={titleId}>Connect a calendar</h3>
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <fieldset className="field">
        <legend className="label">Kind</legend>
        <div className="checkbox-grid">
          {KINDS.map((choice) => (
            <label className="choice" key={choice.kind}>
              <input type="radio" name="kind" value={choice.kind} checked={kind === choice.kind} onChange={() => setKind(choice.kind)} />
              <span className="choice-text">
                <strong>{choice.title}</strong>
                <span>{choice.text}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      {kind === 'ics' ? (
        <TextField
          label="Feed URL"
          hint="Google: the calendar's settings, “Secret address in iCal format”. Outlook: a published calendar's ICS link. It starts with https:// or webcal://."
          type="url"
          inputMode="url"
          value={fields.url}
          maxLength={2000}
          required
          autoComplete="off"
          spellCheck={false}
          placeholder="https://calendar.google.com/calendar/ical/…/basic.ics"
          onChange={(event) => set({ url: event.target.value })}
        />
      ) : (
        <>
          <TextField
            label="Server URL"
            type="url"
            inputMode="url"
            value={fields.serverUrl}
            maxLength={2000}
            required
            autoComplete="off"
            spellCheck={false}
            placeholder="https://caldav.fastmail.com/"
            onChange={(event) => set({ serverUrl: event.target.value })}
          />
          <TextField label="Username" value={fields.username} maxLength={500} required autoComplete="off" onChange={(event) => set({ username: event.target.value })} />
          <TextField
            label="App password"
            hint="Make one in your provider's account settings; your usual password is often refused."
            type="password"
            value={fields.password}
            maxLength={500}
            required
            autoComplete="new-password"
            onChange={(event) => set({ password: event.target.value })}
          />
        </>
      )}
      <TextField label="Name (optional)" value={fields.name} maxLength={200} placeholder="e.g. Work" onChange={(event) => set({ name: event.target.value })} />
      <p className="hint">
        {kind === 'ics' ? 'The address is' : 'The password is'} stored encrypted and never shown again. The first sync starts at once.
      </p>
      <div className="btn-row">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Connecting…' : 'Connect'}
        </button>
        <button type="button" className="btn" onClick={props.onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
