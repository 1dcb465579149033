import { type FormEvent, type ReactNode, useState } from 'react';
import { api, errorMessage } from '../api.ts';
import { TextField } from '../components/fields.tsx';
import { ErrorNotice } from '../components/ui.tsx';
import { formatDateTime } from '../time.ts';
import type { BookingItem } from './format.ts';
import { useSession } from './session.ts';

/** The first listed date, the count, the invitee: how a series shows as one entry. */
function SeriesHead(props: { bookings: BookingItem[]; count: string; badge: [string, string] }) {
  const { user } = useSession();
  const first = props.bookings[0]!;
  return (
    <>
      <div className="item-head">
        <div>
          <h2 className="item-title">{formatDateTime(first.startAt, user.timezone)}</h2>
          <p className="muted">
            {first.durationMin} min · {first.eventType.name} · <strong data-testid="series-count">{props.count}</strong>
          </p>
        </div>
        <span className={`badge ${props.badge[1]}`}>{props.badge[0]}</span>
      </div>
      {first.invitee && (
        <p>
          <strong>{first.invitee.name}</strong> <span className="muted break">{first.invitee.email}</span>
        </p>
      )}
    </>
  );
}

/** Passes on the series' bookings the list shows (occurrences on later pages come with them). */
function onListed(listed: BookingItem[], onChanged: (booking: BookingItem) => void, changed: BookingItem[] | undefined): void {
  const ids = new Set(listed.map((booking) => booking.id));
  for (const booking of changed ?? []) if (ids.has(booking.id)) onChanged(booking);
}

interface SeriesGroupProps {
  seriesId: string;
  bookings: BookingItem[];
  renderBooking: (booking: BookingItem) => ReactNode;
  onChanged: (booking: BookingItem) => void;
}

/**
 * A series in the bookings list, shown as one: its first listed date, "N occurrences", the invitee; its dates open
 * as ordinary booking rows, and the occurrences still to come can be canceled together.
 */
export function SeriesGroup(props: SeriesGroupProps) {
  const [open, setOpen] = useState(false);
  const [canceling, setCanceling] = useState(false);
  const first = props.bookings[0]!;
  const upcoming = props.bookings.filter((booking) => (booking.status === 'active' || booking.status === 'pending') && Date.parse(booking.startAt) > Date.now());
  return (
    <li className="card booking-item series-group" data-testid="booking-series" aria-label={`Series: ${first.eventType.name} with ${first.invitee?.name ?? 'invitee'}`}>
      <div className="card-body">
        <SeriesHead bookings={props.bookings} count={`${props.bookings.length} occurrences`} badge={['Series', 'badge-accent']} />
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
              onListed(props.bookings, props.onChanged, changed);
            }}
          />
        )}
        {open && <ul className="series-occurrences">{props.bookings.map(props.renderBooking)}</ul>}
      </div>
    </li>
  );
}

/**
 * A series' pending occurrences in "To confirm", shown as one: its first date, "N to confirm", the invitee; its
 * dates open as ordinary booking rows (each still confirmed or declined alone), and "Confirm all" or "Decline all"
 * decides every pending occurrence of the series at once, with one e-mail to each person.
 */
export function PendingSeriesGroup(props: SeriesGroupProps) {
  const { onSessionLost } = useSession();
  const [open, setOpen] = useState(false);
  const [declining, setDeclining] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const first = props.bookings[0]!;
  const confirmAll = async () => {
    setBusy(true);
    setError(null);
    try {
      const series = await api.bookingSeries.confirm.mutate({ id: props.seriesId });
      onListed(props.bookings, props.onChanged, series.bookings);
    } catch (failure) {
      onSessionLost(failure);
      setError(errorMessage(failure));
    }
    setBusy(false);
  };
  return (
    <li className="card booking-item series-group" data-testid="pending-series" aria-label={`Series to confirm: ${first.eventType.name} with ${first.invitee?.name ?? 'invitee'}`}>
      <div className="card-body">
        <SeriesHead bookings={props.bookings} count={`${props.bookings.length} to confirm`} badge={['Series', 'badge-warning']} />
        {error && <ErrorNotice>{error}</ErrorNotice>}
        <div className="btn-row">
          <button type="button" className="btn btn-small btn-primary" disabled={busy} onClick={() => void confirmAll()}>
            Confirm all
          </button>
          <button type="button" className="btn btn-small btn-danger" aria-expanded={declining} onClick={() => setDeclining(!declining)}>
            Decline all
          </button>
          <button type="button" className="btn btn-small" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'Hide dates' : 'Show dates'}
          </button>
        </div>
        {declining && (
          <DeclineSeriesForm
            seriesId={props.seriesId}
            onDone={(changed) => {
              setDeclining(false);
              onListed(props.bookings, props.onChanged, changed);
            }}
          />
        )}
        {open && <ul className="series-occurrences">{props.bookings.map(props.renderBooking)}</ul>}
      </div>
    </li>
  );
}

function DeclineSeriesForm(props: { seriesId: string; onDone: (bookings?: BookingItem[]) => void }) {
  const { onSessionLost } = useSession();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const series = await api.bookingSeries.decline.mutate({ id: props.seriesId, reason: reason.trim() || undefined });
      props.onDone(series.bookings);
    } catch (failure) {
      onSessionLost(failure);
      setError(errorMessage(failure));
      setBusy(false);
    }
  };
  return (
    <form className="form-panel" onSubmit={(event) => void submit(event)}>
      <p className="muted">Declines every occurrence of the series still waiting for you; the invitee gets one e-mail for them all.</p>
      <TextField multiline label="Reason for declining (optional)" maxLength={500} rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <div className="btn-row">
        <button type="submit" className="btn btn-danger-solid btn-small" disabled={busy}>
          {busy ? 'Declining…' : 'Decline the series'}
        </button>
        <button type="button" className="btn btn-small" onClick={() => props.onDone()}>
          Keep it
        </button>
      </div>
    </form>
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
        Cancels the {props.upcoming === 1 ? 'occurrence' : `${props.upcoming} occurrences`} still to come; the invitee gets one e-mail for them all.
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
