import { type ReactNode, useCallback, useEffect, useRef } from 'react';
import { AddToCalendar, ManageLink } from '../../components/InviteeLinks.tsx';
import { WhereText } from '../../components/WhereText.tsx';
import { formatSlot } from '../../time.ts';
import type { BookedSeries, Booking } from './types.ts';

/** The end of a step: a check mark, the heading (focused, so screen readers announce it), what happened, and what next. */
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

/** "You are booked": what, when (in the visitor's zone), with whom, and the links to the calendar and to manage it. */
export function BookedConfirmation(props: { eventName: string; hostName: string; booking: Booking; timeZone: string; onAgain: () => void }) {
  const { booking } = props;
  const pending = booking.status === 'pending';
  return (
    <Confirmation title={pending ? 'Your request is sent' : 'You are booked'} onAgain={props.onAgain} againLabel="Book another time">
      {pending && <p className="muted">{props.hostName} confirms each booking: the time is held for you until they do.</p>}
      <dl className="meta" data-testid="booking-confirmation">
        <dt>What</dt>
        <dd>{props.eventName}</dd>
        <dt>When</dt>
        <dd>
          {formatSlot({ start: booking.startAt, end: booking.endAt }, props.timeZone)}
          <span className="muted"> ({props.timeZone.replace(/_/g, ' ')})</span>
        </dd>
        <dt>With</dt>
        <dd>{props.hostName}</dd>
        {booking.location && (
          <>
            <dt>Where</dt>
            <dd>
              <WhereText location={booking.location} reader="invitee" other={props.hostName} />
            </dd>
          </>
        )}
        {booking.invitee && (
          <>
            <dt>Invitee</dt>
            <dd>
              {booking.invitee.name} ({booking.invitee.email})
            </dd>
          </>
        )}
      </dl>
      {booking.links && (
        <>
          <AddToCalendar links={booking.links} />
          <ManageLink href={booking.links.manage} />
        </>
      )}
    </Confirmation>
  );
}

const EVERY = { daily: ['day', 'days'], weekly: ['week', 'weeks'], monthly: ['month', 'months'] } as const;

/** "Your series is booked": every date (in the visitor's zone), each with its own calendar file and manage link. */
export function SeriesConfirmation(props: { eventName: string; hostName: string; series: BookedSeries; timeZone: string; onAgain: () => void }) {
  const { series } = props;
  const { frequency, interval, count } = series.recurrence;
  const pending = series.bookings.some((booking) => booking.status === 'pending');
  const every = interval === 1 ? `Every ${EVERY[frequency][0]}` : `Every ${interval} ${EVERY[frequency][1]}`;
  return (
    <Confirmation title={pending ? 'Your requests are sent' : 'Your series is booked'} onAgain={props.onAgain} againLabel="Book another time">
      {pending && <p className="muted">{props.hostName} confirms each booking: the times are held for you until they do.</p>}
      <dl className="meta" data-testid="series-confirmation">
        <dt>What</dt>
        <dd>{props.eventName}</dd>
        <dt>Repeats</dt>
        <dd>
          {every}, {count} times <span className="muted">({props.timeZone.replace(/_/g, ' ')})</span>
        </dd>
        <dt>With</dt>
        <dd>{props.hostName}</dd>
      </dl>
      <ol className="series-dates" data-testid="series-dates">
        {series.bookings.map((booking) => (
          <li key={booking.id}>
            <span>{formatSlot({ start: booking.startAt, end: booking.endAt }, props.timeZone)}</span>
            {booking.links && (
              <span className="series-links">
                <a href={booking.links.ics} download="booking.ics">.ics</a>
                <a href={booking.links.manage} target="_blank" rel="noopener">Cancel or reschedule</a>
              </span>
            )}
          </li>
        ))}
      </ol>
      <p className="manage-note">Each date is its own booking: move or cancel one with its link. Keep these links to yourself.</p>
    </Confirmation>
  );
}
