import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, errorMessage, errorStatus } from '../../api.ts';
import { TextField } from '../../components/fields.tsx';
import { ErrorNotice } from '../../components/ui.tsx';
import { LocationChoice, type LocationPick, locationRequest, pickProblems } from './LocationChoice.tsx';
import type { Booking, EventTypeInfo, Slot } from './types.ts';

export function isEmail(text: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text.trim());
}

/** The invitee's name, e-mail and notes for the chosen time; a time taken meanwhile sends them back to the times. */
export function DetailsForm(props: {
  eventType: EventTypeInfo;
  hostName: string;
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
  const [place, setPlace] = useState<LocationPick>({ index: props.eventType.locations.length === 1 ? 0 : -1, text: '' });
  const [errors, setErrors] = useState<{ name?: string; email?: string; choice?: string; text?: string; form?: string }>({});
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
    try {
      const booking = await api.publicBooking.book.mutate({
        eventTypeId: props.eventType.id,
        key: props.privateKey,
        start: props.slot.start,
        durationMin: props.duration,
        invitee: { name: name.trim(), email: email.trim(), timezone: props.timeZone },
        ...(notes.trim() ? { notes: notes.trim() } : {}),
        ...locationRequest(props.eventType.locations, place),
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
      <div className="btn-row">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Booking…' : props.eventType.requiresConfirmation ? 'Request booking' : 'Confirm booking'}
        </button>
      </div>
    </form>
  );
}
