import { type ReactNode, useEffect, useRef } from 'react';
import { api, errorStatus } from '../api.ts';
import { LoadFailed, Spinner } from '../components/ui.tsx';
import { formatDate, formatDateTime } from '../time.ts';
import { type ContactHistory, titleCase } from './format.ts';
import { useLoaded } from './loaded.ts';
import { appLink } from './router.ts';
import { useSession } from './session.ts';

/** How many of the latest bookings, and of the latest leads, the history shows. */
const HISTORY_LIMIT = 50;

type ContactBooking = ContactHistory['bookings']['data'][number];
type ContactLead = ContactHistory['leads']['data'][number];

/** One contact: who they are, their bookings (latest first) and the times they left their details. */
export function ContactHistoryView({ email }: { email: string }) {
  const loaded = useLoaded(async () => {
    try {
      return { history: await api.contacts.history.query({ email, limit: HISTORY_LIMIT }) };
    } catch (error) {
      if (errorStatus(error) === 404) return { history: null };
      throw error;
    }
  }, [email]);
  const history = loaded.value?.history;

  return (
    <>
      <p className="back-link">
        <a className="btn btn-link" {...appLink('/app/contacts')}>
          <span aria-hidden="true">←</span> All contacts
        </a>
      </p>
      {loaded.error && <LoadFailed what="This contact" reason={loaded.error} onRetry={loaded.reload} />}
      {!loaded.value && !loaded.error && <Spinner label="Loading the contact…" />}
      {history === null && (
        <div className="empty-state card" data-testid="contact-missing">
          <h1>No such contact</h1>
          <p>Nobody has booked you or left their details with the address {email}.</p>
        </div>
      )}
      {history && <ContactDetails history={history} />}
    </>
  );
}

function ContactDetails({ history }: { history: ContactHistory }) {
  const { user } = useSession();
  const { contact } = history;
  const headingRef = useRef<HTMLHeadingElement>(null);
  // Coming from the list, the heading is where a screen reader (and the keyboard) should continue.
  useEffect(() => headingRef.current?.focus(), []);
  return (
    <div data-testid="contact-history">
      <div className="page-header">
        <h1 ref={headingRef} tabIndex={-1} className="break">
          {contact.name ?? contact.email}
        </h1>
        <p>Their bookings and the times they left their details. Times are shown in your time zone, {user.timezone}.</p>
      </div>
      <div className="stack">
        <section className="card" aria-label="Contact">
          <div className="card-body">
            <dl className="meta" data-testid="contact-summary">
              <dt>E-mail</dt>
              <dd>{contact.email}</dd>
              <dt>Status</dt>
              <dd>
                <span className={`badge ${contact.kind === 'client' ? 'badge-accent' : 'badge-neutral'}`}>{titleCase(contact.status)}</span>
              </dd>
              <dt>Meetings</dt>
              <dd>{contact.meetings}</dd>
              <dt>No-shows</dt>
              <dd>{contact.noShows}</dd>
              <dt>First seen</dt>
              <dd>{contact.firstSeenAt ? formatDate(contact.firstSeenAt, user.timezone) : '—'}</dd>
              <dt>Last activity</dt>
              <dd>{contact.lastActivityAt ? formatDate(contact.lastActivityAt, user.timezone) : '—'}</dd>
            </dl>
          </div>
        </section>
        <HistorySection title="Bookings" testId="contact-bookings" total={history.bookings.total} shown={history.bookings.data.length} empty="No bookings.">
          {history.bookings.data.map((booking) => (
            <BookingEntry key={booking.id} booking={booking} timeZone={user.timezone} />
          ))}
        </HistorySection>
        <HistorySection title="Lead events" testId="contact-leads" total={history.leads.total} shown={history.leads.data.length} empty="No lead events.">
          {history.leads.data.map((lead) => (
            <LeadEntry key={lead.id} lead={lead} timeZone={user.timezone} />
          ))}
        </HistorySection>
      </div>
    </div>
  );
}

function HistorySection(props: { title: string; testId: string; total: number; shown: number; empty: string; children: ReactNode }) {
  const id = `${props.testId}-title`;
  return (
    <section className="card" aria-labelledby={id}>
      <div className="card-body">
        <h2 id={id}>
          {props.title} <span className="muted">({props.total})</span>
        </h2>
        {props.total === 0 && <p className="empty">{props.empty}</p>}
        {props.shown > 0 && (
          <ul className="item-list history-list" data-testid={props.testId}>
            {props.children}
          </ul>
        )}
        {props.shown < props.total && (
          <p className="muted">
            Showing the latest {props.shown} of {props.total}.
          </p>
        )}
      </div>
    </section>
  );
}

function BookingEntry({ booking, timeZone }: { booking: ContactBooking; timeZone: string }) {
  const active = booking.status === 'active';
  const upcoming = active && Date.parse(booking.startAt) > Date.now();
  return (
    <li className="history-entry" data-testid="contact-booking">
      <div>
        <strong>{formatDateTime(booking.startAt, timeZone)}</strong>
        <div className="muted">
          {booking.durationMin} min · {booking.eventType.name}
        </div>
      </div>
      <div className="history-badges">
        {upcoming && <span className="badge badge-accent">Upcoming</span>}
        {!active && (
          <span className="badge badge-danger">Canceled{booking.canceledBy ? ` by the ${booking.canceledBy}` : ''}</span>
        )}
        {booking.noShow && <span className="badge badge-warning">No-show</span>}
      </div>
    </li>
  );
}

function LeadEntry({ lead, timeZone }: { lead: ContactLead; timeZone: string }) {
  return (
    <li className="history-entry" data-testid="contact-lead">
      <div>
        <strong>{formatDateTime(lead.createdAt, timeZone)}</strong>
        <div className="muted">Left their details for {lead.eventType.name}</div>
      </div>
      <div className="history-badges">
        <span className="badge badge-neutral">{titleCase(lead.status)}</span>
        {lead.booked && <span className="badge badge-accent">Booked</span>}
      </div>
    </li>
  );
}
