import { type FormEvent, useState } from 'react';
import { api, errorMessage } from '../../api.ts';
import { TextField } from '../../components/fields.tsx';
import { ConfirmAction, ErrorNotice } from '../../components/ui.tsx';
import { formatDateTime } from '../../time.ts';
import { useSession } from '../session.ts';
import { type CalendarChange, CalendarSettings } from './CalendarSettings.tsx';
import type { ConnectedCalendar, Connection } from './types.ts';

/** One connection: its status and last sync, its calendars' settings, and Sync now, Rename and Remove. */
export function ConnectionItem(props: {
  connection: Connection;
  syncing: boolean;
  onChanged: (connection: Connection) => void;
  onSyncRequested: (connection: Connection) => void;
  onRemoved: () => void;
}) {
  const { connection } = props;
  const { user, onSessionLost } = useSession();
  const [renaming, setRenaming] = useState(false);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);

  /** Runs one action, reporting its failure in this item as the API words it. */
  const act = async (what: string, action: () => Promise<void>) => {
    setError(null);
    setSaving(true);
    try {
      await action();
    } catch (caught) {
      onSessionLost(caught);
      setError(`${what} failed. ${errorMessage(caught)}`);
    } finally {
      setSaving(false);
    }
  };
  const change = (calendar: ConnectedCalendar, settings: CalendarChange) =>
    act('Saving', async () => props.onChanged(await api.calendars.update.mutate({ id: connection.id, calendars: [{ id: calendar.id, ...settings }] })));

  return (
    <li className="item" data-testid="calendar-connection" aria-label={connection.name}>
      <div className="item-head">
        <h3 className="item-title break">{connection.name}</h3>
        <div className="chips">
          <span className="chip">{connection.kind === 'ics' ? 'iCalendar feed' : 'CalDAV account'}</span>
          <StatusBadge status={connection.status} />
        </div>
      </div>
      {connection.status === 'error' && (
        <div className="notice notice-warning">
          The last sync failed: {(connection.lastError ?? 'no reason was given').replace(/\.$/, '')}.
          {connection.lastSyncedAt && ' Busy times from the last good sync still count.'}
        </div>
      )}
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <dl className="meta">
        <dt>Address</dt>
        <dd className="mono">{connection.url}</dd>
        <dt>Last sync</dt>
        <dd data-testid="last-sync">{lastSync(connection, props.syncing, user.timezone)}</dd>
      </dl>
      <CalendarSettings connection={connection} disabled={saving} onChange={(calendar, settings) => void change(calendar, settings)} />
      {renaming ? (
        <RenameForm
          connection={connection}
          onCancel={() => setRenaming(false)}
          onSave={(name) =>
            act('Renaming', async () => {
              props.onChanged(await api.calendars.update.mutate({ id: connection.id, name }));
              setRenaming(false);
            })
          }
        />
      ) : (
        <div className="btn-row">
          <button
            type="button"
            className="btn btn-small"
            disabled={props.syncing}
            onClick={() =>
              void act('Sync now', async () => {
                const requested = await api.calendars.sync.mutate({ id: connection.id });
                props.onChanged(requested);
                props.onSyncRequested(requested);
              })
            }
          >
            {props.syncing ? 'Syncing…' : 'Sync now'}
            <span className="visually-hidden"> {connection.name}</span>
          </button>
          <button type="button" className="btn btn-small" onClick={() => setRenaming(true)}>
            Rename<span className="visually-hidden"> {connection.name}</span>
          </button>
          <ConfirmAction
            label="Remove"
            confirmLabel="Remove"
            question="Remove this calendar? Its busy times stop counting at once."
            accessibleName={`Remove the calendar ${connection.name}`}
            onConfirm={() =>
              act('Removing', async () => {
                await api.calendars.delete.mutate({ id: connection.id });
                props.onRemoved();
              })
            }
          />
        </div>
      )}
    </li>
  );
}

function lastSync(connection: Connection, syncing: boolean, timeZone: string): string {
  const when = connection.lastSyncedAt ? formatDateTime(connection.lastSyncedAt, timeZone) : null;
  if (connection.status === 'pending' && !when) return 'Syncing for the first time…';
  if (syncing) return when ? `${when} (syncing now…)` : 'Syncing now…';
  return when ?? 'Never';
}

function StatusBadge({ status }: { status: Connection['status'] }) {
  if (status === 'ok') return <span className="badge badge-accent">Synced</span>;
  if (status === 'error') return <span className="badge badge-danger">Sync failed</span>;
  return <span className="badge badge-warning">Pending</span>;
}

function RenameForm(props: { connection: Connection; onCancel: () => void; onSave: (name: string) => Promise<void> }) {
  const [name, setName] = useState(props.connection.name);
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return setProblem('Enter a name.');
    setProblem(null);
    void props.onSave(name.trim());
  };
  return (
    <form className="inline-add" onSubmit={submit} noValidate aria-label={`Rename ${props.connection.name}`}>
      <TextField
        label="Name"
        value={name}
        maxLength={200}
        error={problem}
        // biome-ignore lint/a11y/noAutofocus: the form opens on request; its one field is where the user goes next
        autoFocus
        onChange={(event) => setName(event.target.value)}
      />
      <button type="submit" className="btn btn-primary">
        Save name
      </button>
      <button type="button" className="btn" onClick={props.onCancel}>
        Cancel
      </button>
    </form>
  );
}
