import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, errorMessage, errorStatus, occurrenceProblems } from '../../api.ts';
import { TextField } from '../../components/fields.tsx';
import { ErrorNotice } from '../../components/ui.tsx';
import { formatDayTime, formatTime } from '../../time.ts';
import type { HoldState } from './booking-flow.ts';
import { LocationChoice, type LocationPick, locationRequest, pickProblems } from './LocationChoice.tsx';
import { type Repeat, RepeatFields } from './RepeatFields.tsx';
import type { BookedSeries, Booking, EventTypeInfo, Slot } from './types.ts';

export function isEmail(text: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text.trim());
}

/**
 * The invitee's name, e-mail and notes for the chosen time, held for them meanwhile when the hold came through; a
 * time taken meanwhile sends them back to the times.
 */
export function DetailsForm(props: {
  eventType: EventTypeInfo;
  hostName: string;
  privateKey: string | null;
  slot: Slot;
  hold: HoldState;
  duration: number;
  timeZone: string;
  onBack: () => void;
  onBooked: (booking: Booking) => void;
  onSeriesBooked: (series: BookedSeries) => void;
  onSlotGone: (message: string) => void;
}) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [notes, setNotes] = useState('');
  const [repeat, setRepeat] = useState<Repeat>({ frequency: 'none' });
  const [place, setPlace] = useState<LocationPick>({ index: props.eventType.locations.length === 1 ? 0 : -1, text: '' });
  const [errors, setErrors] = useState<{ name?: string; email?: string; choice?: string; text?: string; form?: string; dates?: string[] }>({});
  const [busy, setBusy] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);

  useEffect(() => headingRef.current?.focus(), []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found: typeof errors = { ...pickProblems(props.eventType.locations, place) };
    if (!name.trim()) found.name = 'Enter your name.';
    if (!isEmail(email)) found.email = 'Enter a valid e-mail address.';
    setErrors(found);
    if (found.name || found.email || found.choice || found.text) return;
    setBusy(true);
    const common = {
      eventTypeId: props.eventType.id,
      key: props.privateKey,
      durationMin: props.duration,
      invitee: { name: name.trim(), email: email.trim(), timezone: props.timeZone },
      ...(notes.trim() ? { notes: notes.trim() } : {}),
      ...locationRequest(props.eventType.locations, place),
    };
    const { hold } = props;
    try {
      if (repeat.frequency === 'none') {
        props.onBooked(await bookOne({ ...common, start: props.slot.start }, hold));
      } else {
        props.onSeriesBooked(await bookSeries({ ...common, startAt: props.slot.start, recurrence: repeat }, hold));
      }
    } catch (caught) {
      const failing = occurrenceProblems(caught);
      if (errorStatus(caught) === 409 && failing.length > 0) {
        setErrors({ form: 'Not every time of the series is free, so nothing was booked. Change the repeat or pick another time.', dates: failing.map(
          (problem) => `${formatDayTime(problem.startAt, props.timeZone)}: ${problem.why}`,
        ) });
        return;
      }
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
      <HoldNotice hold={props.hold} timeZone={props.timeZone} />
      {errors.form && (
        <ErrorNotice>
          {errors.form}
          {errors.dates && (
            <ul data-testid="series-problems">
              {errors.dates.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          )}
        </ErrorNotice>
      )}
      <TextField
        label="Name"
        error={errors.name}
        autoComplete="name"
        value={name}
        maxLength={200}
        required
        onChange={(event) => setName(event.target.value)}
      />
      <TextField
        label="E-mail"
        error={errors.email}
        type="email"
        autoComplete="email"
        value={email}
        maxLength={254}
        required
        onChange={(event) => setEmail(event.target.value)}
      />
      <LocationChoice
        options={props.eventType.locations}
        hostName={props.hostName}
        pick={place}
        onPick={(next) => {
          setPlace(next);
          setErrors((previous) => ({ ...previous, choice: undefined, text: undefined }));
        }}
        errors={{ choice: errors.choice, text: errors.text }}
      />
      <TextField
        multiline
        label={
          <>
            Anything to share before the meeting? <span className="muted">(optional)</span>
          </>
        }
        value={notes}
        maxLength={5000}
        rows={3}
        onChange={(event) => setNotes(event.target.value)}
      />
      {props.eventType.recurrence && <RepeatFields value={repeat} maxCount={props.eventType.recurrence.maxCount} onChange={setRepeat} />}
      <div className="btn-row">
        <button type="submit" className="btn btn-primary" disabled={busy || props.hold.kind === 'holding'}>
          {busy ? 'Booking…' : props.eventType.requiresConfirmation ? 'Request booking' : 'Confirm booking'}
        </button>
      </div>
    </form>
  );
}

/** Whether the time is kept for the invitee while they fill in the form, and until when. */
function HoldNotice({ hold, timeZone }: { hold: HoldState; timeZone: string }) {
  if (hold.kind === 'holding') {
    return (
      <p className="notice" role="status" data-testid="hold-notice">
        Reserving this time for you…
      </p>
    );
  }
  if (hold.kind === 'none') return null;
  return (
    <p className="notice notice-info" role="status" data-testid="hold-notice">
      This time is reserved for you until {formatTime(hold.hold.expiresAt, timeZone)} while you fill in your details.
    </p>
  );
}

type PublicBookingInput = Parameters<typeof api.publicBooking.book.mutate>[0];
type PublicSeriesInput = Parameters<typeof api.publicBooking.bookSeries.mutate>[0];

/** Books with the page's hold; one that ended while the form was filled in leaves a time like any other, booked as such. */
async function bookOne(body: PublicBookingInput, hold: HoldState): Promise<Booking> {
  return withHold(hold, (held) => api.publicBooking.book.mutate({ ...body, ...held }));
}

/** A series from the held time, the hold its first date's: a refused series leaves the hold to the invitee. */
async function bookSeries(body: PublicSeriesInput, hold: HoldState): Promise<BookedSeries> {
  return withHold(hold, (held) => api.publicBooking.bookSeries.mutate({ ...body, ...held }));
}

/** Calls `book` with the page's hold, and again without it when the hold has ended meanwhile (404). */
async function withHold<T>(hold: HoldState, book: (held: { holdId?: string; holdToken?: string }) => Promise<T>): Promise<T> {
  if (hold.kind !== 'held') return book({});
  try {
    return await book({ holdId: hold.hold.id, holdToken: hold.hold.holdToken });
  } catch (caught) {
    if (errorStatus(caught) !== 404) throw caught;
    return book({});
  }
}
