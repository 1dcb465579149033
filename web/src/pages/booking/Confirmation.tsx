import { type ReactNode, useCallback, useEffect, useRef } from 'react';
import { AddToCalendar, ManageLink } from '../../components/InviteeLinks.tsx';
import { WhereText } from '../../components/WhereText.tsx';
import { formatSlot } from '../../time.ts';
import type { Booking } from './types.ts';

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
