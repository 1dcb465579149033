import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage, type RouterOutputs } from '../api.ts';
import { ErrorNotice, Spinner } from '../components/ui.tsx';
import { formatDateTime } from '../time.ts';
import { titleCase } from './format.ts';
import { useSession } from './session.ts';

type Message = RouterOutputs['bookings']['listMessages']['data'][number];
type Content = RouterOutputs['bookings']['getMessage'];

const KEPT = 'kept, not sent';

/**
 * A booking's e-mail: each message, to whom, and what became of it; a failed one can be sent again, and any one
 * read exactly as it goes out (on a service without SMTP, the mail it kept).
 */
export function BookingMessages({ bookingId }: { bookingId: string }) {
  const { user, onSessionLost } = useSession();
  const [messages, setMessages] = useState<Message[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(() => {
    api.bookings.listMessages
      .query({ id: bookingId })
      .then((result) => setMessages(result.data))
      .catch((failure: unknown) => {
        onSessionLost(failure);
        setError(errorMessage(failure));
      });
  }, [bookingId, onSessionLost]);
  useEffect(load, [load]);

  const resend = async (message: Message) => {
    setError(null);
    try {
      await api.bookings.resendMessage.mutate({ id: bookingId, messageId: message.id });
      load();
    } catch (failure) {
      onSessionLost(failure);
      setError(errorMessage(failure));
    }
  };

  if (!messages) return error ? <ErrorNotice>{error}</ErrorNotice> : <Spinner label="Loading e-mails…" />;
  const kept = messages.some((message) => message.lastError?.startsWith(KEPT));
  return (
    <div className="form-panel" data-testid="booking-messages">
      {kept && (
        <p className="notice" data-testid="kept-notice">
          E-mail is kept, not sent: this service has no SMTP server (SMTP_URL). Open a message to see it exactly as it
          would have gone out.
        </p>
      )}
      {error && <ErrorNotice>{error}</ErrorNotice>}
      {messages.length === 0 && <p className="muted">No e-mails for this booking.</p>}
      <ul className="plain-list">
        {messages.map((message) => (
          <li key={message.id} data-testid="booking-message">
            <p>
              <strong>{titleCase(message.kind)}</strong> to the {message.audience} <span className="muted break">{message.recipient}</span>{' '}
              <span className={`badge ${message.status === 'failed' ? 'badge-danger' : message.status === 'sent' ? 'badge-accent' : ''}`}>{message.status}</span>
            </p>
            <p className="muted">
              {message.sentAt ? `Sent ${formatDateTime(message.sentAt, user.timezone)}` : `Due ${formatDateTime(message.scheduledFor, user.timezone)}`}
              {message.attempts > 0 ? ` · ${message.attempts} attempt${message.attempts === 1 ? '' : 's'}` : ''}
              {message.lastError ? ` · ${message.lastError}` : ''}
              {message.serverReply ? <span data-testid="server-reply" className="break">{` · the server answered ${message.serverReply}`}</span> : null}
            </p>
            <div className="btn-row">
              <button type="button" className="btn btn-small" aria-expanded={open === message.id} onClick={() => setOpen(open === message.id ? null : message.id)}>
                {open === message.id ? 'Close' : 'View'}
              </button>
              {message.status === 'failed' && (
                <button type="button" className="btn btn-small" onClick={() => void resend(message)}>
                  Resend
                </button>
              )}
            </div>
            {open === message.id && <MessageContent bookingId={bookingId} messageId={message.id} />}
          </li>
        ))}
      </ul>
    </div>
  );
}

function MessageContent({ bookingId, messageId }: { bookingId: string; messageId: string }) {
  const { onSessionLost } = useSession();
  const [content, setContent] = useState<Content | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.bookings.getMessage
      .query({ id: bookingId, messageId })
      .then(setContent)
      .catch((failure: unknown) => {
        onSessionLost(failure);
        setError(errorMessage(failure));
      });
  }, [bookingId, messageId, onSessionLost]);
  if (error) return <ErrorNotice>{error}</ErrorNotice>;
  if (!content) return <Spinner label="Loading the message…" />;
  return (
    <div className="message-view" data-testid="message-content">
      <dl>
        <dt>From</dt>
        <dd>{content.from}</dd>
        <dt>To</dt>
        <dd>{content.to}</dd>
        <dt>Subject</dt>
        <dd data-testid="message-subject">{content.subject}</dd>
        <dt>Message-ID</dt>
        <dd className="break">{content.messageIdHeader}</dd>
      </dl>
      {/* The HTML part in a sandbox: no scripts, no same-origin access. */}
      <iframe title={`HTML part of ${content.subject}`} sandbox="" srcDoc={content.html} className="message-html" />
      <details>
        <summary>Plain text</summary>
        <pre data-testid="message-text">{content.text}</pre>
      </details>
      {content.ics && (
        <details>
          <summary>Invitation (invite.ics)</summary>
          <pre data-testid="message-ics">{content.ics}</pre>
        </details>
      )}
    </div>
  );
}
