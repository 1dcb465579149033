import { type FormEvent, useId, useState } from 'react';
import { api, errorMessage } from '../../api.ts';
import { TextField } from '../../components/fields.tsx';
import { ErrorNotice, useChoiceSet } from '../../components/ui.tsx';
import { useSession } from '../session.ts';
import type { WebhookEventKind, WebhookItem } from './types.ts';

/** Every kind an endpoint can subscribe to, with what it means (a Record, so a new kind must be named here). */
export const EVENT_LABELS: Record<WebhookEventKind, string> = {
  'booking.created': 'A booking was made',
  'booking.rescheduled': 'A booking was moved to another time',
  'booking.canceled': 'A booking was canceled',
  'booking.no_show': 'An invitee was marked (or unmarked) as a no-show',
  'booking.requested': 'A booking waits for your confirmation',
  'booking.confirmed': 'You confirmed a pending booking',
  'booking.declined': 'A pending booking was declined (by you, or unconfirmed at its start)',
  'lead.created': 'Someone left their details on your booking page',
  'lead.updated': "A lead's status or details changed",
  'lead.converted': 'A lead booked a meeting',
};
const EVENT_KINDS = Object.keys(EVENT_LABELS) as WebhookEventKind[];

/** Creates an endpoint (answering its secret, shown once) or changes one. */
export function WebhookForm(props: {
  editing?: WebhookItem;
  onCancel: () => void;
  onSaved: (endpoint: WebhookItem, secret?: string) => void;
}) {
  const { editing } = props;
  const { onSessionLost } = useSession();
  const [url, setUrl] = useState(editing?.url ?? '');
  const [description, setDescription] = useState(editing?.description ?? '');
  const [selected, toggle] = useChoiceSet<WebhookEventKind>(editing?.events ?? ['booking.created']);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const titleId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!url.trim()) return setError('Enter the URL that should receive the events.');
    if (selected.size === 0) return setError('Pick at least one event.');
    setBusy(true);
    setError(null);
    const fields = { url: url.trim(), events: EVENT_KINDS.filter((kind) => selected.has(kind)), description: description.trim() || null };
    try {
      if (editing) {
        props.onSaved(await api.webhooks.update.mutate({ id: editing.id, ...fields }));
      } else {
        const { secret, ...created } = await api.webhooks.create.mutate({ ...fields, description: fields.description ?? undefined });
        props.onSaved(created, secret);
      }
    } catch (caught) {
      onSessionLost(caught);
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="form form-panel" onSubmit={submit} noValidate aria-labelledby={titleId}>
      <h3 id={titleId}>{editing ? 'Edit endpoint' : 'New webhook endpoint'}</h3>
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <TextField
        label="Endpoint URL"
        hint={
          <>
            An <code>https://</code> address on the public internet. Each event is POSTed there, signed.
          </>
        }
        type="url"
        inputMode="url"
        value={url}
        maxLength={2000}
        required
        // biome-ignore lint/a11y/noAutofocus: the form opens on request; its first field is where the user goes next
        autoFocus
        placeholder="https://example.com/webhooks/scheduling"
        onChange={(event) => setUrl(event.target.value)}
      />
      <TextField
        label="Description (optional)"
        value={description}
        maxLength={500}
        placeholder="e.g. CRM sync"
        onChange={(event) => setDescription(event.target.value)}
      />
      <fieldset className="field">
        <legend className="label">Events</legend>
        <div className="checkbox-grid">
          {EVENT_KINDS.map((kind) => (
            <label className="choice" key={kind}>
              <input type="checkbox" name="events" value={kind} checked={selected.has(kind)} onChange={(event) => toggle(kind, event.target.checked)} />
              <span className="choice-text">
                <strong className="mono">{kind}</strong>
                <span>{EVENT_LABELS[kind]}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      <div className="btn-row">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : editing ? 'Save changes' : 'Add endpoint'}
        </button>
        <button type="button" className="btn" onClick={props.onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
