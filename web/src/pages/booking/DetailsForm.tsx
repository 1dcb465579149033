import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, errorMessage, errorStatus, occurrenceProblems } from '../../api.ts';
import { TextField } from '../../components/fields.tsx';
import { ErrorNotice } from '../../components/ui.tsx';
import { formatDayTime } from '../../time.ts';
import { type Repeat, RepeatFields } from './RepeatFields.tsx';
import type { BookedSeries, Booking, EventTypeInfo, Slot } from './types.ts';

export function isEmail(text: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text.trim());
}

/** The invitee's name, e-mail and notes for the chosen time; a time taken meanwhile sends them back to the times. */
export function DetailsForm(props: {
  eventType: EventTypeInfo;
  privateKey: string | null;
  slot: Slot;
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
  const [errors, setErrors] = useState<{ name?: string; email?: string; form?: string; dates?: string[] }>({});
  const [busy, setBusy] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);

  useEffect(() => headingRef.current?.focus(), []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found: typeof errors = {};
    if (!name.trim()) found.name = 'Enter your name.';
    if (!isEmail(email)) found.email = 'Enter a valid e-mail address.';
    setErrors(found);
    if (found.name || found.email) return;
    setBusy(true);
    const common = {
      eventTypeId: props.eventType.id,
      key: props.privateKey,
      durationMin: props.duration,
      invitee: { name: name.trim(), email: email.trim(), timezone: props.timeZone },
      ...(notes.trim() ? { notes: notes.trim() } : {}),
    };
    try {
      if (repeat.frequency === 'none') {
        props.onBooked(await api.publicBooking.book.mutate({ ...common, start: props.slot.start }));
      } else {
        props.onSeriesBooked(await api.publicBooking.bookSeries.mutate({ ...common, startAt: props.slot.start, recurrence: repeat }));
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
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Booking…' : props.eventType.requiresConfirmation ? 'Request booking' : 'Confirm booking'}
        </button>
      </div>
    </form>
  );
}
