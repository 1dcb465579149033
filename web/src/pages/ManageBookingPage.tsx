import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { api, errorMessage, errorStatus, type RouterOutputs } from '../api.ts';
import { AddToCalendar } from '../components/InviteeLinks.tsx';
import { TextField } from '../components/fields.tsx';
import { MessagePage } from '../components/MessagePage.tsx';
import { ErrorNotice, Spinner } from '../components/ui.tsx';
import { browserTimeZone, formatDateTime, formatSlot } from '../time.ts';
import { Confirmation } from './booking/Confirmation.tsx';
import { SlotPicker } from './booking/SlotPicker.tsx';
import { BookingSummary, ClockIcon, PinIcon, TimeZoneFact } from './booking/Summary.tsx';
import { WhereText } from '../components/WhereText.tsx';
import type { Slot } from './booking/types.ts';

type Managed = RouterOutputs['publicBooking']['managed'];

type Mode = { kind: 'view' } | { kind: 'reschedule' } | { kind: 'confirm-move'; slot: Slot } | { kind: 'done'; what: 'canceled' | 'moved' };

/** /book/manage/:token — the invitee's private page: see the booking, add it to a calendar, cancel or reschedule. */
export function ManageBookingPage({ token }: { token: string }) {
  const [managed, setManaged] = useState<Managed | null>(null);
  const [loadError, setLoadError] = useState<{ notFound: boolean; message: string } | null>(null);

  useEffect(() => {
    let cancelled = false;
    api.publicBooking.managed
      .query({ token })
      .then((loaded) => {
        if (cancelled) return;
        setManaged(loaded);
        document.title = `Your booking · ${loaded.eventType.name}`;
      })
      .catch((error: unknown) => {
        if (!cancelled) setLoadError({ notFound: errorStatus(error) === 404, message: errorMessage(error) });
      });
    return () => {
      cancelled = true;
    };
  }, [token]);

  if (loadError) {
    return (
      <MessagePage title={loadError.notFound ? 'This link does not open a booking' : 'Something went wrong'}>
        <p>{loadError.notFound ? 'Check that you copied the whole link from your confirmation.' : loadError.message}</p>
      </MessagePage>
    );
  }
  if (!managed) {
    return (
      <main className="booking-shell">
        <Spinner label="Loading your booking…" />
      </main>
    );
  }
  return <ManageBooking token={token} managed={managed} onChange={setManaged} />;
}

function ManageBooking(props: { token: string; managed: Managed; onChange: (managed: Managed) => void }) {
  const { booking, eventType } = props.managed;
  const [timeZone, setTimeZone] = useState(booking.invitee?.timezone ?? browserTimeZone());
  const [mode, setMode] = useState<Mode>({ kind: 'view' });
  const [week, setWeek] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const hostName = props.managed.host.name ?? eventType.owner.name ?? eventType.owner.slug;
  const canceled = booking.status === 'canceled' || booking.status === 'declined';
  const changesUntil = props.managed.changesUntil;
  const tooLate = (until: string | null) => until !== null && Date.parse(until) < Date.now();
  // The manage token opens the availability of the booking's event type, even a secret one.
  const access = useMemo(() => ({ manageToken: props.token }), [props.token]);

  async function move(slot: Slot) {
    setError(null);
    try {
      props.onChange(await api.publicBooking.rescheduleManaged.mutate({ token: props.token, start: slot.start }));
      setMode({ kind: 'done', what: 'moved' });
    } catch (caught) {
      setError(errorStatus(caught) === 409 ? 'Sorry, that time has just been taken. Please pick another one.' : errorMessage(caught));
      setMode({ kind: 'reschedule' });
    }
  }

  return (
    <div className="booking-shell">
      <main className="booking-card" aria-labelledby="event-title">
        <BookingSummary color={eventType.color} hostName={hostName} title={eventType.name}>
          <ul className="booking-facts">
            <li>
              <ClockIcon />
              <span data-testid="managed-when">{formatSlot({ start: booking.startAt, end: booking.endAt }, timeZone)}</span>
            </li>
            <TimeZoneFact timeZone={timeZone} />
            {booking.location && (
              <li>
                <PinIcon />
                <WhereText location={booking.location} reader="invitee" other={hostName} />
              </li>
            )}
          </ul>
          <p className={canceled ? 'notice notice-warning' : 'notice notice-info'} data-testid="managed-status">
            {statusText(booking, hostName)}
          </p>
        </BookingSummary>
        <section className="booking-main" aria-label="Your booking">
          {error && <ErrorNotice>{error}</ErrorNotice>}
          {mode.kind === 'done' && (
            <Confirmation title={mode.what === 'canceled' ? 'Your booking is canceled' : 'Your booking is moved'}>
              <p className="muted">
                {mode.what === 'canceled'
                  ? `${hostName} can see that you canceled. The time is free again.`
                  : `New time: ${formatSlot({ start: booking.startAt, end: booking.endAt }, timeZone)}.`}
              </p>
              {mode.what === 'moved' && <AddToCalendar links={props.managed.links} />}
              {mode.what === 'canceled' && <BookAgain eventType={eventType} hostName={hostName} />}
            </Confirmation>
          )}
          {mode.kind === 'view' && (
            <div className="manage-actions">
              <h2>Your booking</h2>
              {canceled ? (
                <>
                  <p className="muted">This booking is {booking.status}.</p>
                  <BookAgain eventType={eventType} hostName={hostName} />
                </>
              ) : (
                <>
                  <AddToCalendar links={props.managed.links} />
                  <section aria-labelledby="reschedule-title">
                    <h3 id="reschedule-title">Need another time?</h3>
                    {tooLate(changesUntil.reschedule) ? (
                      <p className="muted">{tooLateText('Rescheduling', changesUntil.reschedule, timeZone, hostName)}</p>
                    ) : (
                      <div>
                        <button type="button" className="btn" onClick={() => setMode({ kind: 'reschedule' })} disabled={!eventType.active}>
                          Reschedule
                        </button>
                      </div>
                    )}
                  </section>
                  {tooLate(changesUntil.cancel) ? (
                    <p className="muted">{tooLateText('Canceling', changesUntil.cancel, timeZone, hostName)}</p>
                  ) : (
                    <CancelForm
                      token={props.token}
                      onCanceled={(managed) => {
                        props.onChange(managed);
                        setMode({ kind: 'done', what: 'canceled' });
                      }}
                    />
                  )}
                </>
              )}
            </div>
          )}
          {mode.kind === 'reschedule' && (
            <>
              <div>
                <button type="button" className="btn btn-link" onClick={() => setMode({ kind: 'view' })}>
                  <span aria-hidden="true">←</span> Keep the current time
                </button>
              </div>
              <SlotPicker
                eventType={{ id: eventType.id, durationsMin: [booking.durationMin] }}
                access={access}
                duration={booking.durationMin}
                onDuration={() => undefined}
                timeZone={timeZone}
                onTimeZone={setTimeZone}
                page={week}
                onPage={setWeek}
                onPick={(slot) => setMode({ kind: 'confirm-move', slot })}
                hostName={hostName}
                focusHeading={false}
              />
            </>
          )}
          {mode.kind === 'confirm-move' && (
            <div className="manage-actions">
              <h2>Move your booking?</h2>
              <p>
                From <strong>{formatSlot({ start: booking.startAt, end: booking.endAt }, timeZone)}</strong> to{' '}
                <strong data-testid="new-time">{formatSlot(mode.slot, timeZone)}</strong>.
              </p>
              <div className="btn-row">
                <button type="button" className="btn btn-primary" onClick={() => void move(mode.slot)}>
                  Confirm new time
                </button>
                <button type="button" className="btn" onClick={() => setMode({ kind: 'reschedule' })}>
                  Pick another time
                </button>
              </div>
            </div>
          )}
        </section>
      </main>
      <p className="footer-note">Powered by Scheduling</p>
    </div>
  );
}

function statusText(booking: Managed['booking'], hostName: string): string {
  switch (booking.status) {
    case 'canceled':
      return `Canceled${booking.canceledBy === 'invitee' ? ' by you' : ` by ${hostName}`}`;
    case 'declined':
      return `Declined by ${hostName}`;
    case 'pending':
      return `Requested: waiting for ${hostName} to confirm`;
    default:
      return 'Confirmed';
  }
}

function tooLateText(what: string, until: string | null, timeZone: string, hostName: string): string {
  return `${what} here was possible until ${formatDateTime(until ?? '', timeZone)}. Please contact ${hostName}.`;
}

/** After a cancellation: the event type's booking page, when it takes bookings and the invitee may open it. */
function BookAgain({ eventType, hostName }: { eventType: Managed['eventType']; hostName: string }) {
  if (!eventType.url) {
    return <p className="muted">If you still want to meet, ask {hostName} for a new booking link.</p>;
  }
  if (!eventType.active) {
    return <p className="muted">{hostName} is not taking bookings for {eventType.name} at the moment.</p>;
  }
  return (
    <section className="book-again" aria-labelledby="book-again-title">
      <h3 id="book-again-title">Still want to meet?</h3>
      <p className="muted">Pick a new time on {hostName}’s booking page.</p>
      <div>
        <a className="btn btn-primary" href={eventType.url} data-testid="book-again">
          Book again
        </a>
      </div>
    </section>
  );
}

function CancelForm(props: { token: string; onCanceled: (managed: Managed) => void }) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      props.onCanceled(
        await api.publicBooking.cancelManaged.mutate({ token: props.token, ...(reason.trim() ? { reason: reason.trim() } : {}) }),
      );
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="cancel-title">
      <h3 id="cancel-title">Can’t make it?</h3>
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <form className="form" onSubmit={submit}>
        <TextField
          multiline
          label={
            <>
              Reason for canceling <span className="muted">(optional, shared with the host)</span>
            </>
          }
          rows={2}
          maxLength={500}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
        />
        <div className="btn-row">
          <button type="submit" className="btn btn-danger" disabled={busy}>
            {busy ? 'Canceling…' : 'Cancel booking'}
          </button>
        </div>
      </form>
    </section>
  );
}
