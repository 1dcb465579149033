import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, errorMessage } from '../../api.ts';
import { TextField } from '../../components/fields.tsx';
import { ErrorNotice } from '../../components/ui.tsx';
import { isEmail } from './DetailsForm.tsx';
import type { EventTypeInfo } from './types.ts';

/** No time suits: the visitor leaves an e-mail (and a name) for the host to get back to them. */
export function LeadForm(props: {
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

  useEffect(() => headingRef.current?.focus(), []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!isEmail(email)) {
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
      <TextField
        label={
          <>
            Name <span className="muted">(optional)</span>
          </>
        }
        autoComplete="name"
        value={name}
        maxLength={200}
        onChange={(event) => setName(event.target.value)}
      />
      <TextField
        label="E-mail"
        error={emailError}
        type="email"
        autoComplete="email"
        value={email}
        maxLength={254}
        required
        onChange={(event) => setEmail(event.target.value)}
      />
      <div className="btn-row">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Sending…' : 'Send my details'}
        </button>
      </div>
    </form>
  );
}
