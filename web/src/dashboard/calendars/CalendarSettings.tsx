import type { ConnectedCalendar, Connection } from './types.ts';

export type CalendarChange = { busy?: boolean; bookingTarget?: boolean };

/** Which of the connection's calendars count as busy, and the one that receives bookings (never a read-only feed's). */
export function CalendarSettings(props: { connection: Connection; disabled: boolean; onChange: (calendar: ConnectedCalendar, settings: CalendarChange) => void }) {
  const { connection, disabled } = props;
  const readOnly = connection.kind === 'ics';
  return (
    <fieldset className="calendar-settings">
      <legend className="label">{connection.calendars.length === 1 ? 'Calendar' : 'Calendars'}</legend>
      <ul className="calendar-rows">
        {connection.calendars.map((calendar) => (
          <li key={calendar.id} className="calendar-row" data-testid="connected-calendar">
            <span className="calendar-name break">{calendar.name}</span>
            <label className="toggle">
              <input type="checkbox" checked={calendar.busy} disabled={disabled} onChange={(event) => props.onChange(calendar, { busy: event.target.checked })} />
              Counts as busy<span className="visually-hidden"> for {calendar.name}</span>
            </label>
            <label className="toggle" title={readOnly ? 'A feed is read-only: bookings cannot be written to it.' : undefined}>
              <input
                type="checkbox"
                checked={calendar.bookingTarget}
                disabled={disabled || readOnly}
                onChange={(event) => props.onChange(calendar, { bookingTarget: event.target.checked })}
              />
              {readOnly ? 'Receives bookings (read-only feed)' : 'Receives bookings'}
              <span className="visually-hidden"> for {calendar.name}</span>
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
