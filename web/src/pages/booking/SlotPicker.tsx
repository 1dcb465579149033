import { useEffect, useId, useMemo, useRef } from 'react';
import { LoadFailed, Spinner } from '../../components/ui.tsx';
import { dateKey, formatDayLong, formatDayMonth, formatDayRange, formatDayTime, formatTime, formatWeekday, timeZoneChoices } from '../../time.ts';
import { formatMinutes } from './format.ts';
import type { EventTypeAccess, EventTypeInfo, Slot } from './types.ts';
import { useWeekSlots } from './week-slots.ts';

/** The week-by-week times of an event type (for booking, and for rescheduling on the manage page). */
export function SlotPicker(props: {
  eventType: Pick<EventTypeInfo, 'id' | 'durationsMin'>;
  access: EventTypeAccess;
  duration: number;
  onDuration: (minutes: number) => void;
  timeZone: string;
  onTimeZone: (zone: string) => void;
  /** Weeks after the current one (0: this week). */
  page: number;
  onPage: (page: number) => void;
  onPick: (slot: Slot) => void;
  /** Offers "Leave your details" when given. */
  onLeaveDetails?: () => void;
  hostName: string;
  focusHeading: boolean;
}) {
  const { eventType, duration, timeZone } = props;
  const headingRef = useRef<HTMLHeadingElement>(null);
  const focusOnMount = useRef(props.focusHeading);
  useEffect(() => {
    if (focusOnMount.current) headingRef.current?.focus();
  }, []);
  const { page } = props;
  const setPage = (next: (current: number) => number) => props.onPage(next(page));
  const week = useWeekSlots(eventType.id, props.access, duration, timeZone, page);
  const ids = { duration: useId(), zone: useId() };
  const zones = useMemo(() => timeZoneChoices(timeZone), [timeZone]);

  return (
    <>
      {eventType.durationsMin.length > 1 && (
        <fieldset>
          <legend className="label" id={ids.duration}>
            Duration
          </legend>
          <div className="segmented">
            {eventType.durationsMin.map((minutes) => (
              <label key={minutes}>
                <input
                  type="radio"
                  name="duration"
                  value={minutes}
                  checked={minutes === duration}
                  onChange={() => props.onDuration(minutes)}
                />
                <span>{formatMinutes(minutes)}</span>
              </label>
            ))}
          </div>
        </fieldset>
      )}

      <div className="week-nav">
        <h2 data-testid="week-label" ref={headingRef} tabIndex={-1}>
          {formatDayRange(week.firstDay, week.lastDay)}
        </h2>
        <div className="btn-row">
          <button
            type="button"
            className="btn btn-small"
            disabled={page === 0}
            onClick={() => setPage((current) => Math.max(0, current - 1))}
          >
            <span aria-hidden="true">←</span> Previous week
          </button>
          <button type="button" className="btn btn-small" disabled={page >= 8} onClick={() => setPage((current) => current + 1)}>
            Next week <span aria-hidden="true">→</span>
          </button>
        </div>
      </div>

      <div className="tz-row">
        <label htmlFor={ids.zone}>Time zone</label>
        <select id={ids.zone} className="select" value={timeZone} onChange={(event) => props.onTimeZone(event.target.value)}>
          {zones.map((zone) => (
            <option key={zone} value={zone}>
              {zone.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </div>

      {week.error && <LoadFailed what="Available times" reason={week.error} onRetry={week.retry} />}
      {!week.slots && !week.error && <Spinner label="Finding available times…" />}
      {week.slots && (
        <>
          {week.slots.length === 0 && (
            <p className="notice">
              No free times this week.{' '}
              {page < 8 && (
                <button type="button" className="btn btn-link" onClick={() => setPage((current) => current + 1)}>
                  Look at next week
                </button>
              )}
            </p>
          )}
          <ul className="days" aria-label="Available times by day">
            {week.days.map((day) => {
              const daySlots = week.slotsOf(day);
              return (
                <li className="day-row" key={dateKey(day)}>
                  <h3 className="day-label">
                    <span className="visually-hidden">{formatDayLong(day)}</span>
                    <span aria-hidden="true">
                      {formatWeekday(day)}
                      <span className="day-date">{formatDayMonth(day)}</span>
                    </span>
                  </h3>
                  {daySlots.length === 0 ? (
                    <p className="no-slots">No times</p>
                  ) : (
                    <div className="day-slots">
                      {daySlots.map((slot) => (
                        <button
                          type="button"
                          className="slot"
                          key={slot.start}
                          data-testid="slot"
                          data-start={slot.start}
                          aria-label={`Book ${formatDayTime(slot.start, timeZone)}`}
                          onClick={() => props.onPick(slot)}
                        >
                          {formatTime(slot.start, timeZone)}
                        </button>
                      ))}
                    </div>
                  )}
                </li>
              );
            })}
          </ul>
        </>
      )}

      {props.onLeaveDetails && (
        <p className="lead-cta">
          No time that works for you?{' '}
          <button type="button" className="btn btn-link" onClick={props.onLeaveDetails}>
            Leave your details
          </button>{' '}
          and {props.hostName} will get back to you.
        </p>
      )}
    </>
  );
}
