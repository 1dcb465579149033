import { type FormEvent, Fragment, useEffect, useState } from 'react';
import { api, errorMessage } from '../api.ts';
import { SelectField, TextField } from '../components/fields.tsx';
import { ErrorNotice, Spinner } from '../components/ui.tsx';
import { WhereText } from '../components/WhereText.tsx';
import { addDays, dateKey, dayStartIso, formatDateTime, formatTime, localDateOf, parseDateInput } from '../time.ts';
import { type BookingItem, type EventTypeItem, titleCase } from './format.ts';
import { BookingMessages } from './BookingMessages.tsx';
import { ListView } from './ListView.tsx';
import { groupBySeries } from './series-groups.ts';
import { PendingSeriesGroup, SeriesGroup } from './SeriesGroup.tsx';
import { useLoadedList } from './loaded.ts';
import { navigate } from './router.ts';
import { useSession } from './session.ts';

type When = 'upcoming' | 'past';
interface Filters {
  when: When;
  status: '' | 'active' | 'pending' | 'canceled' | 'declined';
  eventTypeId: string;
  fromDate: string;
  toDate: string;
}

/**
 * The list query for the filters: "upcoming" starts now, soonest first; "past" ends now, latest first; the dates
 * narrow either, as days in the host's zone.
 */
function listInput(filters: Filters, timeZone: string, cursor: string | undefined) {
  const now = new Date().toISOString();
  const fromDay = dayStartIso(filters.fromDate, timeZone);
  const toDate = parseDateInput(filters.toDate);
  const toDay = toDate ? dayStartIso(dateKey(addDays(toDate, 1)), timeZone) : undefined;
  const later = (a: string | undefined, b: string) => (a && a > b ? a : b);
  const earlier = (a: string | undefined, b: string) => (a && a < b ? a : b);
  return {
    status: filters.status || undefined,
    eventTypeId: filters.eventTypeId || undefined,
    order: filters.when === 'upcoming' ? ('asc' as const) : ('desc' as const),
    from: filters.when === 'upcoming' ? later(fromDay, now) : fromDay,
    to: filters.when === 'past' ? earlier(toDay, now) : toDay,
    cursor,
    limit: 20,
  };
}

export function BookingsPage() {
  const { user, onSessionLost } = useSession();
  const [filters, setFilters] = useState<Filters>({ when: 'upcoming', status: '', eventTypeId: '', fromDate: '', toDate: '' });
  const [eventTypes, setEventTypes] = useState<EventTypeItem[]>([]);
  const bookings = useLoadedList((cursor) => api.bookings.list.query(listInput(filters, user.timezone, cursor)), [filters, user.timezone]);
  // Upcoming bookings waiting for the host's decision, soonest first, whatever the filters below.
  const toConfirm = useLoadedList(
    (cursor) => api.bookings.list.query({ status: 'pending', order: 'asc', from: new Date().toISOString(), cursor, limit: 20 }),
    [],
  );
  const changed = (booking: BookingItem) => {
    bookings.put(booking);
    if (booking.status === 'pending') toConfirm.put(booking);
    else toConfirm.remove(booking.id);
  };
  useEffect(() => {
    api.eventTypes.list.query().then((result) => setEventTypes(result.data), onSessionLost);
  }, [onSessionLost]);

  const set = (change: Partial<Filters>) => setFilters((previous) => ({ ...previous, ...change }));
  const filtered = filters.status !== '' || filters.eventTypeId !== '' || filters.fromDate !== '' || filters.toDate !== '';

  return (
    <>
      <div className="page-header">
        <h1>Bookings</h1>
        <p>Times are shown in your time zone, {user.timezone}.</p>
      </div>
      {toConfirm.items && toConfirm.items.length > 0 && (
        <section aria-label="To confirm" data-testid="to-confirm">
          <h2>To confirm</h2>
          <p className="muted">These bookings hold their time until you confirm or decline them; unconfirmed at their start, they are declined.</p>
          <ul className="booking-list">
            {groupBySeries(toConfirm.items).map((entry) =>
              entry.kind === 'booking' ? (
                <BookingRow key={entry.booking.id} booking={entry.booking} onChanged={changed} />
              ) : (
                <PendingSeriesGroup
                  key={entry.seriesId}
                  seriesId={entry.seriesId}
                  bookings={entry.bookings}
                  onChanged={changed}
                  renderBooking={(booking) => <BookingRow key={booking.id} booking={booking} onChanged={changed} />}
                />
              ),
            )}
          </ul>
        </section>
      )}
      <section className="card" aria-label="Filters">
        <div className="card-body filters">
          <div className="segmented" role="group" aria-label="Which bookings">
            {(['upcoming', 'past'] as const).map((when) => (
              <button key={when} type="button" className="btn btn-small" aria-pressed={filters.when === when} onClick={() => set({ when })}>
                {when === 'upcoming' ? 'Upcoming' : 'Past'}
              </button>
            ))}
          </div>
          <SelectField label="Status" value={filters.status} onChange={(e) => set({ status: e.target.value as Filters['status'] })}>
            <option value="">Any</option>
            <option value="active">Active</option>
            <option value="pending">To confirm</option>
            <option value="canceled">Canceled</option>
            <option value="declined">Declined</option>
          </SelectField>
          <SelectField label="Event type" value={filters.eventTypeId} onChange={(e) => set({ eventTypeId: e.target.value })}>
            <option value="">All</option>
            {eventTypes.map((eventType) => (
              <option key={eventType.id} value={eventType.id}>{eventType.name}</option>
            ))}
          </SelectField>
          <TextField label="From" type="date" value={filters.fromDate} onChange={(e) => set({ fromDate: e.target.value })} />
          <TextField label="To" type="date" value={filters.toDate} onChange={(e) => set({ toDate: e.target.value })} />
        </div>
      </section>
      <ListView
        list={bookings}
        what="Your bookings"
        loading="Loading bookings…"
        empty={
          <div className="empty-state card" data-testid="bookings-empty">
            {filtered ? (
              <p>No bookings match these filters.</p>
            ) : filters.when === 'upcoming' ? (
              <>
                <h2>No upcoming bookings</h2>
                <p>
                  Share a booking link so people can pick a time: create an event type, then copy its link or embed it on
                  your site.
                </p>
                <a className="btn btn-primary" href="/app/event-types" onClick={(e) => { e.preventDefault(); navigate('/app/event-types'); }}>
                  Go to event types
                </a>
              </>
            ) : (
              <p>No past bookings yet.</p>
            )}
          </div>
        }
      >
        {(items) => (
          <ul className="booking-list" data-testid="bookings">
            {groupBySeries(items).map((entry) =>
              entry.kind === 'booking' ? (
                <BookingRow key={entry.booking.id} booking={entry.booking} onChanged={changed} />
              ) : (
                <SeriesGroup
                  key={entry.seriesId}
                  seriesId={entry.seriesId}
                  bookings={entry.bookings}
                  onChanged={changed}
                  renderBooking={(booking) => <BookingRow key={booking.id} booking={booking} onChanged={changed} />}
                />
              ),
            )}
          </ul>
        )}
      </ListView>
      {bookings.more && bookings.items && (
        <div className="btn-row">
          <button type="button" className="btn" onClick={bookings.more}>
            Show more
          </button>
        </div>
      )}
    </>
  );
}

type Panel = 'none' | 'cancel' | 'reschedule' | 'decline' | 'messages';

const STATUS_BADGES: Record<BookingItem['status'], [string, string]> = {
  active: ['Active', 'badge-accent'],
  pending: ['To confirm', 'badge-warning'],
  canceled: ['Canceled', 'badge-danger'],
  declined: ['Declined', 'badge-danger'],
};

function BookingRow({ booking, onChanged }: { booking: BookingItem; onChanged: (booking: BookingItem) => void }) {
  const { user, onSessionLost } = useSession();
  const [panel, setPanel] = useState<Panel>('none');
  const [error, setError] = useState<string | null>(null);
  const noShow = booking.noShow === true;
  const started = Date.parse(booking.startAt) <= Date.now();
  const active = booking.status === 'active';
  const pending = booking.status === 'pending';
  const [badge, badgeClass] = STATUS_BADGES[booking.status];

  const confirm = async () => {
    setError(null);
    try {
      onChanged(await api.bookings.confirm.mutate({ id: booking.id }));
    } catch (failure) {
      onSessionLost(failure);
      setError(errorMessage(failure));
    }
  };

  const markNoShow = async (value: boolean) => {
    setError(null);
    try {
      onChanged(await api.bookings.markNoShow.mutate({ id: booking.id, noShow: value }));
    } catch (failure) {
      onSessionLost(failure);
      setError(errorMessage(failure));
    }
  };

  return (
    <li className="card booking-item" data-testid="booking" aria-label={`${booking.eventType.name} with ${booking.invitee?.name ?? 'invitee'}`}>
      <div className="card-body">
        <div className="item-head">
          <div>
            <h2 className="item-title">{formatDateTime(booking.startAt, user.timezone)}</h2>
            <p className="muted">
              {booking.durationMin} min · {booking.eventType.name}
            </p>
          </div>
          <span className={`badge ${badgeClass}`}>{badge}</span>
        </div>
        {booking.invitee && (
          <p>
            <strong>{booking.invitee.name}</strong> <span className="muted break">{booking.invitee.email}</span>
            <span className="muted"> · {booking.invitee.timezone}</span>
          </p>
        )}
        {booking.location && (
          <p className="booking-where">
            <WhereText location={booking.location} reader="host" other={booking.invitee?.name ?? 'the invitee'} />
          </p>
        )}
        <InviteeDetails booking={booking} />
        {booking.status === 'canceled' && (
          <p className="muted">
            Canceled{booking.canceledBy ? ` by the ${booking.canceledBy}` : ''}
            {booking.cancelReason ? `: “${booking.cancelReason}”` : ''}
          </p>
        )}
        {booking.status === 'declined' && <p className="muted">Declined{booking.declineReason ? `: “${booking.declineReason}”` : ''}</p>}
        {noShow && <p className="badge badge-warning">No-show</p>}
        {error && <ErrorNotice>{error}</ErrorNotice>}
        <div className="btn-row">
          <button type="button" className="btn btn-small" aria-expanded={panel === 'messages'} onClick={() => setPanel(panel === 'messages' ? 'none' : 'messages')}>
            E-mails
          </button>
        </div>
        {(active || pending) && (
          <div className="btn-row">
            {pending && !started && (
              <>
                <button type="button" className="btn btn-small btn-primary" onClick={() => void confirm()}>
                  Confirm
                </button>
                <button type="button" className="btn btn-small btn-danger" aria-expanded={panel === 'decline'} onClick={() => setPanel(panel === 'decline' ? 'none' : 'decline')}>
                  Decline
                </button>
              </>
            )}
            {!started && (
              <>
                <button type="button" className="btn btn-small" aria-expanded={panel === 'reschedule'} onClick={() => setPanel(panel === 'reschedule' ? 'none' : 'reschedule')}>
                  Reschedule
                </button>
                <button type="button" className="btn btn-small btn-danger" aria-expanded={panel === 'cancel'} onClick={() => setPanel(panel === 'cancel' ? 'none' : 'cancel')}>
                  Cancel booking
                </button>
              </>
            )}
            {started &&
              active &&
              (noShow ? (
                <button type="button" className="btn btn-small" onClick={() => void markNoShow(false)}>
                  Undo no-show
                </button>
              ) : (
                <button type="button" className="btn btn-small" onClick={() => void markNoShow(true)}>
                  Mark as no-show
                </button>
              ))}
          </div>
        )}
        {panel === 'cancel' && (
          <CancelForm booking={booking} onDone={(changed) => { setPanel('none'); if (changed) onChanged(changed); }} />
        )}
        {panel === 'decline' && (
          <DeclineForm booking={booking} onDone={(changed) => { setPanel('none'); if (changed) onChanged(changed); }} />
        )}
        {panel === 'messages' && <BookingMessages bookingId={booking.id} />}
        {panel === 'reschedule' && (
          <ReschedulePicker booking={booking} onDone={(changed) => { setPanel('none'); if (changed) onChanged(changed); }} />
        )}
      </div>
    </li>
  );
}

/** What the invitee wrote when booking: their notes, the answers to the booking form, the guests they added. */
function InviteeDetails({ booking }: { booking: BookingItem }) {
  const notes = booking.notes?.trim();
  const answers = booking.answers ?? [];
  const guests = booking.guests ?? [];
  if (!notes && answers.length === 0 && guests.length === 0) return null;
  return (
    <dl className="meta booking-details" data-testid="booking-details">
      {notes && (
        <>
          <dt>Notes</dt>
          <dd className="keep-lines" data-testid="booking-notes">{notes}</dd>
        </>
      )}
      {answers.map((answer, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: answers keep the order they were given in
        <Fragment key={index}>
          <dt>{titleCase(answer.questionId)}</dt>
          <dd>{answer.value.trim() || '—'}</dd>
        </Fragment>
      ))}
      {guests.length > 0 && (
        <>
          <dt>{guests.length === 1 ? 'Guest' : 'Guests'}</dt>
          <dd>
            <ul className="plain-list" aria-label="Guests">
              {guests.map((guest, index) => (
                <li key={`${index}:${guest}`}>{guest}</li>
              ))}
            </ul>
          </dd>
        </>
      )}
    </dl>
  );
}

function CancelForm({ booking, onDone }: { booking: BookingItem; onDone: (booking?: BookingItem) => void }) {
  const { onSessionLost } = useSession();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onDone(await api.bookings.cancel.mutate({ id: booking.id, reason: reason.trim() || undefined }));
    } catch (failure) {
      onSessionLost(failure);
      setError(errorMessage(failure));
      setBusy(false);
    }
  };
  return (
    <form className="form-panel" onSubmit={(event) => void submit(event)}>
      <TextField multiline label="Reason for canceling (optional)" maxLength={500} rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <div className="btn-row">
        <button type="submit" className="btn btn-danger-solid btn-small" disabled={busy}>
          {busy ? 'Canceling…' : 'Confirm cancellation'}
        </button>
        <button type="button" className="btn btn-small" onClick={() => onDone()}>
          Keep booking
        </button>
      </div>
    </form>
  );
}

function DeclineForm({ booking, onDone }: { booking: BookingItem; onDone: (booking?: BookingItem) => void }) {
  const { onSessionLost } = useSession();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onDone(await api.bookings.decline.mutate({ id: booking.id, reason: reason.trim() || undefined }));
    } catch (failure) {
      onSessionLost(failure);
      setError(errorMessage(failure));
      setBusy(false);
    }
  };
  return (
    <form className="form-panel" onSubmit={(event) => void submit(event)}>
      <TextField multiline label="Reason for declining (optional)" maxLength={500} rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <div className="btn-row">
        <button type="submit" className="btn btn-danger-solid btn-small" disabled={busy}>
          {busy ? 'Declining…' : 'Decline booking'}
        </button>
        <button type="button" className="btn btn-small" onClick={() => onDone()}>
          Keep it
        </button>
      </div>
    </form>
  );
}

/** The slots the engine offers for the booking's event type and duration on one day, in the host's zone. */
function ReschedulePicker({ booking, onDone }: { booking: BookingItem; onDone: (booking?: BookingItem) => void }) {
  const { user, onSessionLost } = useSession();
  const [day, setDay] = useState(() => dateKey(localDateOf(Date.parse(booking.startAt), user.timezone)));
  const [slots, setSlots] = useState<{ start: string }[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const date = parseDateInput(day);
    if (!date) return;
    setSlots(null);
    setError(null);
    api.availability.get
      .query({
        eventTypeId: booking.eventType.id,
        from: dayStartIso(day, user.timezone) ?? '',
        to: dayStartIso(dateKey(addDays(date, 1)), user.timezone) ?? '',
        tz: user.timezone,
        duration: booking.durationMin,
      })
      .then((result) => setSlots(result.data.filter((slot) => Date.parse(slot.start) !== Date.parse(booking.startAt))))
      .catch((failure: unknown) => {
        onSessionLost(failure);
        setError(errorMessage(failure));
      });
  }, [day, booking, user.timezone, onSessionLost]);

  const move = async (start: string) => {
    setBusy(true);
    setError(null);
    try {
      onDone(await api.bookings.reschedule.mutate({ id: booking.id, start }));
    } catch (failure) {
      onSessionLost(failure);
      setError(errorMessage(failure));
      setBusy(false);
    }
  };

  return (
    <div className="form-panel" data-testid="reschedule">
      <TextField label="New day" type="date" value={day} onChange={(e) => setDay(e.target.value)} />
      {error && <ErrorNotice>{error}</ErrorNotice>}
      {!slots && !error && <Spinner label="Finding free times…" />}
      {slots && slots.length === 0 && <p className="muted">No free times that day. Try another day.</p>}
      {slots && slots.length > 0 && (
        // biome-ignore lint/a11y/useSemanticElements: a group of slot buttons
        <div className="slot-grid" role="group" aria-label={`Free times on ${day} (${user.timezone})`}>
          {slots.map((slot) => (
            <button key={slot.start} type="button" className="btn btn-small" disabled={busy} onClick={() => void move(slot.start)}>
              {formatTime(slot.start, user.timezone)}
            </button>
          ))}
        </div>
      )}
      <div className="btn-row">
        <button type="button" className="btn btn-small" onClick={() => onDone()}>
          Close
        </button>
      </div>
    </div>
  );
}
