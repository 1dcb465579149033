import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * calendar_busy_day from calendar_busy, for the calendars of one connection (see the table's migration): the
 * availability statements read these rows, the explanations and busy listings the events. Called by every writer
 * of calendar_busy, in its transaction, after its writes. Only days that changed are written (a sync every 10
 * minutes mostly finds the same days), and days left without busy time deleted.
 */
export async function rebuildBusyDays(tx: EntityManager, connectionId: string): Promise<void> {
  await tx.execute(
    `with fresh as (${busyDaysSelect('cal.connection_id = ?')}),
     gone as (
       delete from calendar_busy_day d using connected_calendar cal
        where d.calendar_id = cal.id and cal.connection_id = ?
          and not exists (select 1 from fresh f where f.calendar_id = d.calendar_id and f.day = d.day)
     )
     insert into calendar_busy_day (calendar_id, host_id, day, counts, minutes)
     select calendar_id, host_id, day, counts, minutes from fresh
     on conflict (calendar_id, day) do update
        set host_id = excluded.host_id, counts = excluded.counts, minutes = excluded.minutes
      where (calendar_busy_day.host_id, calendar_busy_day.counts, calendar_busy_day.minutes)
            is distinct from (excluded.host_id, excluded.counts, excluded.minutes)`,
    [connectionId, connectionId],
    'run',
  );
}

/** Inserts the day rows of the calendars `calendars` (a condition on `cal`, connected_calendar) selects. */
export const busyDaysSql = (calendars: string) =>
  `insert into calendar_busy_day (calendar_id, host_id, day, counts, minutes) ${busyDaysSelect(calendars)}`;

/**
 * The day rows of some calendars: per calendar and UTC day, its events in minutes rounded outward (an event from
 * 09:00:30 to 09:59:30 is busy from 09:00 to 10:00, as the slot engine has always read busy time), clipped to the
 * day, in order.
 */
const busyDaysSelect = (calendars: string) => `select cb.calendar_id, cb.host_id, d.day, cal.busy as counts,
         string_agg(greatest(m.s, d.day * 1440) || ',' || least(m.e, d.day * 1440 + 1440), ',' order by m.s, m.e) as minutes
    from connected_calendar cal
    join calendar_busy cb on cb.calendar_id = cal.id
    cross join lateral (select floor(date_part('epoch', lower(cb.busy)) / 60)::int as s,
                               ceil(date_part('epoch', upper(cb.busy)) / 60)::int as e) m
    cross join lateral generate_series(floor(m.s / 1440.0)::int, floor((m.e - 1) / 1440.0)::int) as d(day)
   where ${calendars} and m.e > m.s
   group by cb.calendar_id, cb.host_id, d.day, cal.busy`;
