import type { inferRouterOutputs } from '@trpc/server';
import { type FormEvent, type ReactNode, useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { AppRouter } from '../../../src/api/root.ts';
import { api, errorMessage, errorStatus } from '../api.ts';
import { AddToCalendar, ManageLink } from '../components/InviteeLinks.tsx';
import { BrandMark, ErrorNotice, LoadFailed, Spinner } from '../components/ui.tsx';
import {
  addDays,
  browserTimeZone,
  dateKey,
  type LocalDate,
  localDateOf,
  startOfLocalDate,
  timeZoneChoices,
} from '../time.ts';

type Outputs = inferRouterOutputs<AppRouter>['publicBooking'];
type EventTypeInfo = Outputs['eventType'];
export type Slot = Outputs['availability']['data'][number];
type Booking = Outputs['book'];

const DAYS_PER_PAGE = 7;

type Step =
  | { kind: 'pick' }
  | { kind: 'details'; slot: Slot }
  | { kind: 'booked'; booking: Booking }
  | { kind: 'lead' }
  | { kind: 'lead-done'; email: string };

/** /book/:userSlug/:eventTypeSlug — pick a duration and a time, then book it or leave your details. */
export function BookingPage(props: { userSlug: string; eventTypeSlug: string; privateKey: string | null }) {
  const [eventType, setEventType] = useState<EventTypeInfo | null>(null);
  const [loadError, setLoadError] = useState<{ notFound: boolean; message: string } | null>(null);

  useEffect(() => {
    let cancelled = false;
    api.publicBooking.eventType
      .query({ userSlug: props.userSlug, eventTypeSlug: props.eventTypeSlug, key: props.privateKey })
      .then((loaded) => {
        if (cancelled) return;
        setEventType(loaded);
        document.title = `${loaded.name} · ${loaded.owner.name ?? 'Book a time'}`;
      })
      .catch((error: unknown) => {
        if (cancelled) return;
        setLoadError({ notFound: errorStatus(error) === 404, message: errorMessage(error) });
        document.title = 'Booking page not available';
      });
    return () => {
      cancelled = true;
    };
  }, [props.userSlug, props.eventTypeSlug, props.privateKey]);

  if (loadError) {
    return (
      <main className="message-page">
        <div>
          <BrandMark />
        </div>
        <h1>{loadError.notFound ? 'This booking page is not available' : 'Something went wrong'}</h1>
        <p>
          {loadError.notFound
            ? 'The link may be mistyped, or the event is no longer offered. Ask the person who shared it for a new link.'
            : loadError.message}
        </p>
      </main>
    );
  }
  if (!eventType) {
    return (
      <main className="booking-shell">
        <Spinner label="Loading booking page…" />
      </main>
    );
  }
  return <Booker eventType={eventType} privateKey={props.privateKey} />;
}

/** What opens a secret event type to the public procedures: its private link key, or (rescheduling) a manage token. */
export type EventTypeAccess = { key: string | null } | { manageToken: string };

function Booker({ eventType, privateKey }: { eventType: EventTypeInfo; privateKey: string | null }) {
  const [duration, setDuration] = useState<number>(eventType.durationsMin[0] ?? 30);
  const [timeZone, setTimeZone] = useState(browserTimeZone);
  const [step, setStep] = useState<Step>({ kind: 'pick' });
  // The week shown, kept here so that coming back to the times (a slot taken meanwhile) stays on it.
  const [week, setWeek] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  // Coming back to the times (not the first visit): focus their heading, so keyboard users are not lost.
  const [returned, setReturned] = useState(false);
  const backToTimes = () => {
    setReturned(true);
    setStep({ kind: 'pick' });
  };
  const hostName = eventType.owner.name ?? eventType.owner.slug;
  // One object while the key stays the same: the slot picker asks again when it changes.
  const access = useMemo(() => ({ key: privateKey }), [privateKey]);

  return (
    <div className="booking-shell">
      <main className="booking-card" aria-labelledby="event-title">
        <BookingSummary color={eventType.color} hostName={hostName} title={eventType.name}>
          <ul className="booking-facts">
            <li>
              <ClockIcon />
              <span>{formatDurations(eventType.durationsMin)}</span>
            </li>
            <TimeZoneFact timeZone={timeZone} />
            {eventType.seatsPerSlot > 1 && (
              <li>
                <PeopleIcon />
                <span>Group event, up to {eventType.seatsPerSlot} people per time</span>
              </li>
            )}
          </ul>
          {step.kind === 'details' && (
            <p className="selected-slot" data-testid="selected-slot">
              {formatSlot(step.slot, timeZone)}
            </p>
          )}
        </BookingSummary>
        <section className="booking-main" aria-label="Choose a time">
          {notice && step.kind === 'pick' && <ErrorNotice>{notice}</ErrorNotice>}
          {step.kind === 'pick' && (
            <SlotPicker
              eventType={eventType}
              access={access}
              duration={duration}
              onDuration={setDuration}
              timeZone={timeZone}
              onTimeZone={setTimeZone}
              page={week}
              onPage={setWeek}
              onPick={(slot) => {
                setNotice(null);
                setStep({ kind: 'details', slot });
              }}
              onLeaveDetails={() => setStep({ kind: 'lead' })}
              hostName={hostName}
              focusHeading={returned}
            />
          )}
          {step.kind === 'details' && (
            <BookingForm
              eventType={eventType}
              privateKey={privateKey}
              slot={step.slot}
              duration={duration}
              timeZone={timeZone}
              onBack={backToTimes}
              onBooked={(booking) => setStep({ kind: 'booked', booking })}
              onSlotGone={(message) => {
                setNotice(message);
                backToTimes();
              }}
            />
          )}
          {step.kind === 'booked' && (
            <Confirmation title="You are booked" onAgain={backToTimes} againLabel="Book another time">
              <dl className="meta" data-testid="booking-confirmation">
                <dt>What</dt>
                <dd>{eventType.name}</dd>
                <dt>When</dt>
                <dd>
                  {formatSlot({ start: step.booking.startAt, end: step.booking.endAt }, timeZone)}
                  <span className="muted"> ({timeZone.replace(/_/g, ' ')})</span>
                </dd>
                <dt>With</dt>
                <dd>{hostName}</dd>
                {step.booking.invitee && (
                  <>
                    <dt>Invitee</dt>
                    <dd>
                      {step.booking.invitee.name} ({step.booking.invitee.email})
                    </dd>
                  </>
                )}
              </dl>
              {step.booking.links && (
                <>
                  <AddToCalendar links={step.booking.links} />
                  <ManageLink href={step.booking.links.manage} />
                </>
              )}
            </Confirmation>
          )}
          {step.kind === 'lead' && (
            <LeadForm
              eventType={eventType}
              privateKey={privateKey}
              hostName={hostName}
              timeZone={timeZone}
              onBack={backToTimes}
              onDone={(email) => setStep({ kind: 'lead-done', email })}
            />
          )}
          {step.kind === 'lead-done' && (
            <Confirmation title="Thanks, we have your details" onAgain={backToTimes} againLabel="See available times">
              <p className="muted">
                {hostName} will get in touch at <strong>{step.email}</strong> to find a time that works.
              </p>
            </Confirmation>
          )}
        </section>
      </main>
      <p className="footer-note">Powered by Scheduling</p>
    </div>
  );
}

/** The week-by-week times of an event type (for booking, and for rescheduling on the manage page). */
export function SlotPicker(props: {
  eventType: Pick<EventTypeInfo, 'id' | 'durationsMin'>;
  access: EventTypeAccess;
  duration: number;
  onDuration: (minutes: number) => void;
  timeZone: string;
  onTimeZone: (zone: string) => void;
  /** Weeks after the current one (0: this week). */
  page: number;
  onPage: (page: number) => void;
  onPick: (slot: Slot) => void;
  /** Offers "Leave your details" when given. */
  onLeaveDetails?: () => void;
  hostName: string;
  focusHeading: boolean;
}) {
  const { eventType, duration, timeZone } = props;
  const { access } = props;
  const headingRef = useRef<HTMLHeadingElement>(null);
  const focusOnMount = useRef(props.focusHeading);
  useEffect(() => {
    if (focusOnMount.current) headingRef.current?.focus();
  }, []);
  const today = useMemo(() => localDateOf(Date.now(), timeZone), [timeZone]);
  const { page } = props;
  const setPage = (next: (current: number) => number) => props.onPage(next(page));
  const [slots, setSlots] = useState<Slot[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const ids = { duration: useId(), zone: useId() };
  const zones = useMemo(() => timeZoneChoices(timeZone), [timeZone]);

  const days = useMemo(
    () => Array.from({ length: DAYS_PER_PAGE }, (_, index) => addDays(today, page * DAYS_PER_PAGE + index)),
    [today, page],
  );
  const firstDay = days[0] ?? today;
  const lastDay = days[days.length - 1] ?? today;

  // One query per week, duration and zone; `attempt` makes "Try again" ask again.
  const request = useMemo(
    () => ({
      input: {
        eventTypeId: eventType.id,
        from: new Date(startOfLocalDate(firstDay, timeZone)).toISOString(),
        to: new Date(startOfLocalDate(addDays(lastDay, 1), timeZone)).toISOString(),
        tz: timeZone,
        duration,
        ...access,
      },
      attempt,
    }),
    [eventType.id, access, firstDay, lastDay, timeZone, duration, attempt],
  );

  useEffect(() => {
    let cancelled = false;
    setSlots(null);
    setError(null);
    api.publicBooking.availability
      .query(request.input)
      .then((result) => {
        if (!cancelled) setSlots(result.data);
      })
      .catch((caught: unknown) => {
        if (!cancelled) setError(errorMessage(caught));
      });
    return () => {
      cancelled = true;
    };
  }, [request]);

  const byDay = useMemo(() => {
    const grouped = new Map<string, Slot[]>();
    for (const slot of slots ?? []) {
      const key = dateKey(localDateOf(Date.parse(slot.start), timeZone));
      const list = grouped.get(key) ?? [];
      list.push(slot);
      grouped.set(key, list);
    }
    return grouped;
  }, [slots, timeZone]);

  const timeFormat = useMemo(
    () => new Intl.DateTimeFormat(undefined, { timeZone, hour: 'numeric', minute: '2-digit' }),
    [timeZone],
  );
  const longTimeFormat = useMemo(
    () => new Intl.DateTimeFormat(undefined, { timeZone, weekday: 'long', day: 'numeric', month: 'long', hour: 'numeric', minute: '2-digit' }),
    [timeZone],
  );

  return (
    <>
      {eventType.durationsMin.length > 1 && (
        <fieldset>
          <legend className="label" id={ids.duration}>
            Duration
          </legend>
          <div className="segmented">
            {eventType.durationsMin.map((minutes) => (
              <label key={minutes}>
                <input
                  type="radio"
                  name="duration"
                  value={minutes}
                  checked={minutes === duration}
                  onChange={() => props.onDuration(minutes)}
                />
                <span>{formatMinutes(minutes)}</span>
              </label>
            ))}
          </div>
        </fieldset>
      )}

      <div className="week-nav">
        <h2 data-testid="week-label" ref={headingRef} tabIndex={-1}>
          {formatDayRange(firstDay, lastDay)}
        </h2>
        <div className="btn-row">
          <button
            type="button"
            className="btn btn-small"
            disabled={page === 0}
            onClick={() => setPage((current) => Math.max(0, current - 1))}
          >
            <span aria-hidden="true">←</span> Previous week
          </button>
          <button type="button" className="btn btn-small" disabled={page >= 8} onClick={() => setPage((current) => current + 1)}>
            Next week <span aria-hidden="true">→</span>
          </button>
        </div>
      </div>

      <div className="tz-row">
        <label htmlFor={ids.zone}>Time zone</label>
        <select id={ids.zone} className="select" value={timeZone} onChange={(event) => props.onTimeZone(event.target.value)}>
          {zones.map((zone) => (
            <option key={zone} value={zone}>
              {zone.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </div>

      {error && (
        <LoadFailed what="Available times" reason={error} onRetry={() => setAttempt((n) => n + 1)} />
      )}
      {!slots && !error && <Spinner label="Finding available times…" />}
      {slots && (
        <>
          {slots.length === 0 && (
            <p className="notice">
              No free times this week.{' '}
              {page < 8 && (
                <button type="button" className="btn btn-link" onClick={() => setPage((current) => current + 1)}>
                  Look at next week
                </button>
              )}
            </p>
          )}
          <ul className="days" aria-label="Available times by day">
            {days.map((day) => {
              const daySlots = byDay.get(dateKey(day)) ?? [];
              return (
                <li className="day-row" key={dateKey(day)}>
                  <h3 className="day-label">
                    <span className="visually-hidden">{formatDayLong(day)}</span>
                    <span aria-hidden="true">
                      {formatWeekday(day)}
                      <span className="day-date">{formatDayMonth(day)}</span>
                    </span>
                  </h3>
                  {daySlots.length === 0 ? (
                    <p className="no-slots">No times</p>
                  ) : (
                    <div className="day-slots">
                      {daySlots.map((slot) => (
                        <button
                          type="button"
                          className="slot"
                          key={slot.start}
                          data-testid="slot"
                          data-start={slot.start}
                          aria-label={`Book ${longTimeFormat.format(new Date(slot.start))}`}
                          onClick={() => props.onPick(slot)}
                        >
                          {timeFormat.format(new Date(slot.start))}
                        </button>
                      ))}
                    </div>
                  )}
                </li>
              );
            })}
          </ul>
        </>
      )}

      {props.onLeaveDetails && (
        <p className="lead-cta">
          No time that works for you?{' '}
          <button type="button" className="btn btn-link" onClick={props.onLeaveDetails}>
            Leave your details
          </button>{' '}
          and {props.hostName} will get back to you.
        </p>
      )}
    </>
  );
}

function BookingForm(props: {
  eventType: EventTypeInfo;
  privateKey: string | null;
  slot: Slot;
  duration: number;
  timeZone: string;
  onBack: () => void;
  onBooked: (booking: Booking) => void;
  onSlotGone: (message: string) => void;
}) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [notes, setNotes] = useState('');
  const [errors, setErrors] = useState<{ name?: string; email?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const ids = { name: useId(), email: useId(), notes: useId(), nameError: useId(), emailError: useId() };

  useEffect(() => headingRef.current?.focus(), []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found: typeof errors = {};
    if (!name.trim()) found.name = 'Enter your name.';
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) found.email = 'Enter a valid e-mail address.';
    setErrors(found);
    if (found.name || found.email) return;
    setBusy(true);
    try {
      const booking = await api.publicBooking.book.mutate({
        eventTypeId: props.eventType.id,
        key: props.privateKey,
        start: props.slot.start,
        durationMin: props.duration,
        invitee: { name: name.trim(), email: email.trim(), timezone: props.timeZone },
        ...(notes.trim() ? { notes: notes.trim() } : {}),
      });
      props.onBooked(booking);
    } catch (caught) {
      if (errorStatus(caught) === 409) {
        props.onSlotGone('Sorry, that time has just been taken. Please pick another one.');
        return;
      }
      setErrors({ form: errorMessage(caught) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="form" onSubmit={submit} noValidate aria-labelledby="details-title">
      <div>
        <button type="button" className="btn btn-link" onClick={props.onBack}>
          <span aria-hidden="true">←</span> Pick another time
        </button>
      </div>
      <h2 id="details-title" ref={headingRef} tabIndex={-1}>
        Your details
      </h2>
      {errors.form && <ErrorNotice>{errors.form}</ErrorNotice>}
      <div className="field">
        <label htmlFor={ids.name}>Name</label>
        <input
          id={ids.name}
          className="input"
          autoComplete="name"
          value={name}
          maxLength={200}
          required
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={errors.name ? ids.nameError : undefined}
          onChange={(event) => setName(event.target.value)}
        />
        {errors.name && (
          <span className="field-error" id={ids.nameError}>
            {errors.name}
          </span>
        )}
      </div>
      <div className="field">
        <label htmlFor={ids.email}>E-mail</label>
        <input
          id={ids.email}
          className="input"
          type="email"
          autoComplete="email"
          value={email}
          maxLength={254}
          required
          aria-invalid={errors.email ? true : undefined}
          aria-describedby={errors.email ? ids.emailError : undefined}
          onChange={(event) => setEmail(event.target.value)}
        />
        {errors.email && (
          <span className="field-error" id={ids.emailError}>
            {errors.email}
          </span>
        )}
      </div>
      <div className="field">
        <label htmlFor={ids.notes}>
          Anything to share before the meeting? <span className="muted">(optional)</span>
        </label>
        <textarea
          id={ids.notes}
          className="textarea"
          value={notes}
          maxLength={5000}
          rows={3}
          onChange={(event) => setNotes(event.target.value)}
        />
      </div>
      <div className="btn-row">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Booking…' : 'Confirm booking'}
        </button>
      </div>
    </form>
  );
}

function LeadForm(props: {
  eventType: EventTypeInfo;
  privateKey: string | null;
  hostName: string;
  timeZone: string;
  onBack: () => void;
  onDone: (email: string) => void;
}) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [emailError, setEmailError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const ids = { name: useId(), email: useId(), emailError: useId() };

  useEffect(() => headingRef.current?.focus(), []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) {
      setEmailError('Enter a valid e-mail address.');
      return;
    }
    setEmailError(null);
    setBusy(true);
    try {
      await api.publicBooking.captureLead.mutate({
        eventTypeId: props.eventType.id,
        key: props.privateKey,
        email: email.trim(),
        timezone: props.timeZone,
        ...(name.trim() ? { name: name.trim() } : {}),
      });
      props.onDone(email.trim());
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="form" onSubmit={submit} noValidate aria-labelledby="lead-title">
      <div>
        <button type="button" className="btn btn-link" onClick={props.onBack}>
          <span aria-hidden="true">←</span> Back to available times
        </button>
      </div>
      <div>
        <h2 id="lead-title" ref={headingRef} tabIndex={-1}>
          Leave your details
        </h2>
        <p className="muted">{props.hostName} will contact you to find a time that suits you both.</p>
      </div>
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <div className="field">
        <label htmlFor={ids.name}>
          Name <span className="muted">(optional)</span>
        </label>
        <input
          id={ids.name}
          className="input"
          autoComplete="name"
          value={name}
          maxLength={200}
          onChange={(event) => setName(event.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor={ids.email}>E-mail</label>
        <input
          id={ids.email}
          className="input"
          type="email"
          autoComplete="email"
          value={email}
          maxLength={254}
          required
          aria-invalid={emailError ? true : undefined}
          aria-describedby={emailError ? ids.emailError : undefined}
          onChange={(event) => setEmail(event.target.value)}
        />
        {emailError && (
          <span className="field-error" id={ids.emailError}>
            {emailError}
          </span>
        )}
      </div>
      <div className="btn-row">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Sending…' : 'Send my details'}
        </button>
      </div>
    </form>
  );
}

export function Confirmation(props: { title: string; children: ReactNode; onAgain?: () => void; againLabel?: string }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  const onAgain = useCallback(() => props.onAgain?.(), [props]);
  return (
    <div className="confirmation">
      <div className="check-circle" aria-hidden="true">
        <svg width="28" height="28" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2.5" aria-hidden="true">
          <path d="M5 12.5l4.5 4.5L19 7.5" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
      </div>
      <h2 ref={headingRef} tabIndex={-1}>
        {props.title}
      </h2>
      {props.children}
      {props.onAgain && props.againLabel && (
        <button type="button" className="btn" onClick={onAgain}>
          {props.againLabel}
        </button>
      )}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------------------------------------

function formatMinutes(minutes: number): string {
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

function formatDurations(durations: number[]): string {
  return durations.map(formatMinutes).join(' · ');
}

/** Local dates are formatted at noon UTC of that date, which is that same date in the UTC formatter. */
const utcNoon = (date: LocalDate) => new Date(Date.UTC(date.year, date.month - 1, date.day, 12));
const weekdayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', timeZone: 'UTC' });
const dayMonthFormat = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });
const dayLongFormat = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
const rangeFormat = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

function formatWeekday(date: LocalDate): string {
  return weekdayFormat.format(utcNoon(date));
}

function formatDayMonth(date: LocalDate): string {
  return dayMonthFormat.format(utcNoon(date));
}

function formatDayLong(date: LocalDate): string {
  return dayLongFormat.format(utcNoon(date));
}

function formatDayRange(first: LocalDate, last: LocalDate): string {
  return rangeFormat.formatRange(utcNoon(first), utcNoon(last));
}

export function formatSlot(slot: { start: string; end: string }, timeZone: string): string {
  const day = new Intl.DateTimeFormat(undefined, { timeZone, weekday: 'long', day: 'numeric', month: 'long' });
  const time = new Intl.DateTimeFormat(undefined, { timeZone, hour: 'numeric', minute: '2-digit' });
  const start = new Date(slot.start);
  return `${day.format(start)}, ${time.formatRange(start, new Date(slot.end))}`;
}

/** The left column of the booking and manage pages: whose meeting, which one, then what the page lists. */
export function BookingSummary(props: { color: string; hostName: string; title: string; children: ReactNode }) {
  return (
    <aside className="booking-summary">
      <div className="color-bar" style={{ background: props.color }} aria-hidden="true" />
      <div>
        <p className="booking-host">{props.hostName}</p>
        <h1 id="event-title">{props.title}</h1>
      </div>
      {props.children}
    </aside>
  );
}

export function TimeZoneFact({ timeZone }: { timeZone: string }) {
  return (
    <li>
      <GlobeIcon />
      <span>Times in {timeZone.replace(/_/g, ' ')}</span>
    </li>
  );
}

export function ClockIcon() {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
      <circle cx="12" cy="12" r="9" />
      <path d="M12 7v5l3 2" strokeLinecap="round" />
    </svg>
  );
}

function GlobeIcon() {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
      <circle cx="12" cy="12" r="9" />
      <path d="M3 12h18M12 3c2.5 2.7 3.8 5.7 3.8 9s-1.3 6.3-3.8 9c-2.5-2.7-3.8-5.7-3.8-9S9.5 5.7 12 3Z" />
    </svg>
  );
}

function PeopleIcon() {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
      <circle cx="9" cy="8" r="3.5" />
      <path d="M2.5 20c.6-3.6 3.2-5.5 6.5-5.5s5.9 1.9 6.5 5.5M16 4.8a3.5 3.5 0 0 1 0 6.4M18 14.8c2 .7 3.2 2.4 3.5 5.2" strokeLinecap="round" />
    </svg>
  );
}
