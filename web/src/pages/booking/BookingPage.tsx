import { useEffect, useMemo, useState } from 'react';
import { api, errorMessage, errorStatus } from '../../api.ts';
import { MessagePage } from '../../components/MessagePage.tsx';
import { ErrorNotice, Spinner } from '../../components/ui.tsx';
import { useBookingFlow } from './booking-flow.ts';
import { BookedConfirmation, Confirmation, SeriesConfirmation } from './Confirmation.tsx';
import { DetailsForm } from './DetailsForm.tsx';
import { formatSlot } from '../../time.ts';
import { formatDurations } from './format.ts';
import { LeadForm } from './LeadForm.tsx';
import { SlotPicker } from './SlotPicker.tsx';
import { BookingSummary, ClockIcon, PeopleIcon, PinIcon, TimeZoneFact } from './Summary.tsx';
import { placesLine } from '../../locations.ts';
import type { EventTypeInfo } from './types.ts';

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
      <MessagePage title={loadError.notFound ? 'This booking page is not available' : 'Something went wrong'}>
        <p>
          {loadError.notFound
            ? 'The link may be mistyped, or the event is no longer offered. Ask the person who shared it for a new link.'
            : loadError.message}
        </p>
      </MessagePage>
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

function Booker({ eventType, privateKey }: { eventType: EventTypeInfo; privateKey: string | null }) {
  const flow = useBookingFlow(eventType, privateKey);
  // One object while the key stays the same: the slot picker asks again when it changes.
  const access = useMemo(() => ({ key: privateKey }), [privateKey]);
  const { step, timeZone } = flow;
  const hostName = eventType.owner.name ?? eventType.owner.slug;

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
            {eventType.locations.length > 0 && (
              <li>
                <PinIcon />
                <span className="keep-lines break" data-testid="event-places">
                  {placesLine(eventType.locations, hostName)}
                </span>
              </li>
            )}
            {eventType.seatsPerSlot > 1 && (
              <li>
                <PeopleIcon />
                <span>Group event, up to {eventType.seatsPerSlot} people per time</span>
              </li>
            )}
          </ul>
          {eventType.description && (
            <p className="booking-description keep-lines" data-testid="event-description">
              {eventType.description}
            </p>
          )}
          {step.kind === 'details' && (
            <p className="selected-slot" data-testid="selected-slot">
              {formatSlot(step.slot, timeZone)}
            </p>
          )}
        </BookingSummary>
        <section className="booking-main" aria-label="Choose a time">
          {flow.notice && step.kind === 'pick' && <ErrorNotice>{flow.notice}</ErrorNotice>}
          {step.kind === 'pick' && (
            <SlotPicker
              eventType={eventType}
              access={access}
              duration={flow.duration}
              onDuration={flow.setDuration}
              timeZone={timeZone}
              onTimeZone={flow.setTimeZone}
              page={flow.week}
              onPage={flow.setWeek}
              onPick={flow.pick}
              onLeaveDetails={flow.leaveDetails}
              hostName={hostName}
              focusHeading={flow.returned}
            />
          )}
          {step.kind === 'details' && (
            <DetailsForm
              eventType={eventType}
              hostName={hostName}
              privateKey={privateKey}
              slot={step.slot}
              hold={step.hold}
              duration={flow.duration}
              timeZone={timeZone}
              onBack={flow.backToTimes}
              onBooked={flow.booked}
              onSeriesBooked={flow.seriesBooked}
              onSlotGone={flow.slotGone}
            />
          )}
          {step.kind === 'booked' && (
            <BookedConfirmation eventName={eventType.name} hostName={hostName} booking={step.booking} timeZone={timeZone} onAgain={flow.backToTimes} />
          )}
          {step.kind === 'series-booked' && (
            <SeriesConfirmation eventName={eventType.name} hostName={hostName} series={step.series} timeZone={timeZone} onAgain={flow.backToTimes} />
          )}
          {step.kind === 'lead' && (
            <LeadForm
              eventType={eventType}
              privateKey={privateKey}
              hostName={hostName}
              timeZone={timeZone}
              onBack={flow.backToTimes}
              onDone={flow.detailsLeft}
            />
          )}
          {step.kind === 'lead-done' && (
            <Confirmation title="Thanks, we have your details" onAgain={flow.backToTimes} againLabel="See available times">
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
