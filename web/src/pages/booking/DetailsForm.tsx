import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, errorMessage, errorStatus } from '../../api.ts';
import { TextField } from '../../components/fields.tsx';
import { ErrorNotice } from '../../components/ui.tsx';
import { formatTime } from '../../time.ts';
import type { HoldState } from './booking-flow.ts';
import type { Booking, EventTypeInfo, Slot } from './types.ts';

export function isEmail(text: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text.trim());
}

/**
 * The invitee's name, e-mail and notes for the chosen time, held for them meanwhile when the hold came through; a
 * time taken meanwhile sends them back to the times.
 */
export function DetailsForm(props: {
  eventType: EventTypeInfo;
  privateKey: string | null;
  slot: Slot;
  hold: HoldState;
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

  useEffect(() => headingRef.current?.focus(), []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found: typeof errors = {};
    if (!name.trim()) found.name = 'Enter your name.';
    if (!isEmail(email)) found.email = 'Enter a valid e-mail address.';
    setErrors(found);
    if (found.name || found.email) return;
    setBusy(true);
    const body = {
      eventTypeId: props.eventType.id,
      key: props.privateKey,
      start: props.slot.start,
      durationMin: props.duration,
      invitee: { name: name.trim(), email: email.trim(), timezone: props.timeZone },
      ...(notes.trim() ? { notes: notes.trim() } : {}),
    };
    const { hold } = props;
    try {
      let booking: Booking;
      try {
        booking = await api.publicBooking.book.mutate(hold.kind === 'held' ? { ...body, holdId: hold.hold.id, holdToken: hold.hold.holdToken } : body);
      } catch (caught) {
        // The hold ended while the form was filled in: the time is like any other again, so book it as such.
        if (hold.kind !== 'held' || errorStatus(caught) !== 404) throw caught;
        booking = await api.publicBooking.book.mutate(body);
      }
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
      <HoldNotice hold={props.hold} timeZone={props.timeZone} />
      {errors.form && <ErrorNotice>{errors.form}</ErrorNotice>}
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
