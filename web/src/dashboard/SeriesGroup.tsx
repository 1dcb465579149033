import { type FormEvent, type ReactNode, useState } from 'react';
import { api, errorMessage } from '../api.ts';
import { TextField } from '../components/fields.tsx';
import { ErrorNotice } from '../components/ui.tsx';
import { formatDateTime } from '../time.ts';
import type { BookingItem } from './format.ts';
import { useSession } from './session.ts';

/**
 * A series in the bookings list, shown as one: its first listed date, "N occurrences", the invitee; its dates open
 * as ordinary booking rows, and the occurrences still to come can be canceled together.
 */
export function SeriesGroup(props: {
  seriesId: string;
  bookings: BookingItem[];
  renderBooking: (booking: BookingItem) => ReactNode;
  onChanged: (booking: BookingItem) => void;
}) {
  const { user } = useSession();
  const [open, setOpen] = useState(false);
  const [canceling, setCanceling] = useState(false);
  const first = props.bookings[0]!;
  const upcoming = props.bookings.filter((booking) => (booking.status === 'active' || booking.status === 'pending') && Date.parse(booking.startAt) > Date.now());
  return (
    <li className="card booking-item series-group" data-testid="booking-series" aria-label={`Series: ${first.eventType.name} with ${first.invitee?.name ?? 'invitee'}`}>
      <div className="card-body">
        <div className="item-head">
          <div>
            <h2 className="item-title">{formatDateTime(first.startAt, user.timezone)}</h2>
            <p className="muted">
              {first.durationMin} min · {first.eventType.name} · <strong data-testid="series-count">{props.bookings.length} occurrences</strong>
            </p>
          </div>
          <span className="badge badge-accent">Series</span>
        </div>
        {first.invitee && (
          <p>
            <strong>{first.invitee.name}</strong> <span className="muted break">{first.invitee.email}</span>
          </p>
        )}
        <div className="btn-row">
          <button type="button" className="btn btn-small" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'Hide dates' : 'Show dates'}
          </button>
          {upcoming.length > 0 && (
            <button type="button" className="btn btn-small btn-danger" aria-expanded={canceling} onClick={() => setCanceling(!canceling)}>
              Cancel series
            </button>
          )}
        </div>
        {canceling && (
          <CancelSeriesForm
            seriesId={props.seriesId}
            upcoming={upcoming.length}
            onDone={(changed) => {
              setCanceling(false);
              // Only the listed ones: occurrences on later pages come with them.
              const listed = new Set(props.bookings.map((booking) => booking.id));
              for (const booking of changed ?? []) if (listed.has(booking.id)) props.onChanged(booking);
            }}
          />
        )}
        {open && <ul className="series-occurrences">{props.bookings.map(props.renderBooking)}</ul>}
      </div>
    </li>
  );
}

function CancelSeriesForm(props: { seriesId: string; upcoming: number; onDone: (bookings?: BookingItem[]) => void }) {
  const { onSessionLost } = useSession();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const series = await api.bookingSeries.cancel.mutate({ id: props.seriesId, reason: reason.trim() || undefined });
      props.onDone(series.bookings);
    } catch (failure) {
      onSessionLost(failure);
      setError(errorMessage(failure));
      setBusy(false);
    }
  };
  return (
    <form className="form-panel" onSubmit={(event) => void submit(event)}>
      <p className="muted">
        Cancels the {props.upcoming === 1 ? 'occurrence' : `${props.upcoming} occurrences`} still to come; the invitee is told about each.
      </p>
      <TextField multiline label="Reason for canceling (optional)" maxLength={500} rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <div className="btn-row">
        <button type="submit" className="btn btn-danger-solid btn-small" disabled={busy}>
          {busy ? 'Canceling…' : 'Cancel the series'}
        </button>
        <button type="button" className="btn btn-small" onClick={() => props.onDone()}>
          Keep it
        </button>
      </div>
    </form>
  );
}
