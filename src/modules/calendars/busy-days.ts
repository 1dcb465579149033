import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * calendar_busy_day from calendar_busy, for the calendars of one connection (see the table's migration): the
 * availability statements read these rows, the explanations and busy listings the events. Called by every writer
 * of calendar_busy, in its transaction, after its writes. Minutes are rounded outward (an event from 09:00:30 to
 * 09:59:30 is busy from 09:00 to 10:00), as the slot engine has always read busy time.
 */
export async function rebuildBusyDays(tx: EntityManager, connectionId: string): Promise<void> {
  await tx.execute(
    'delete from calendar_busy_day d using connected_calendar cal where d.calendar_id = cal.id and cal.connection_id = ?',
    [connectionId],
    'run',
  );
  await tx.execute(busyDaysSql('cal.connection_id = ?'), [connectionId], 'run');
}

/** Inserts the day rows of the calendars `calendars` (a condition on `cal`, connected_calendar) selects. */
export const busyDaysSql = (calendars: string) => `insert into calendar_busy_day (calendar_id, host_id, day, counts, minutes)
  select cb.calendar_id, cb.host_id, d.day, cal.busy,
         string_agg(greatest(m.s, d.day * 1440) || ',' || least(m.e, d.day * 1440 + 1440), ',')
    from connected_calendar cal
    join calendar_busy cb on cb.calendar_id = cal.id
    cross join lateral (select floor(date_part('epoch', lower(cb.busy)) / 60)::int as s,
                               ceil(date_part('epoch', upper(cb.busy)) / 60)::int as e) m
    cross join lateral generate_series(floor(m.s / 1440.0)::int, floor((m.e - 1) / 1440.0)::int) as d(day)
   where ${calendars} and m.e > m.s
   group by cb.calendar_id, cb.host_id, d.day, cal.busy`;
