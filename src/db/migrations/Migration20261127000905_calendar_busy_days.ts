import { Migration } from '@mikro-orm/migrations';

/**
 * Each connected calendar's busy time per UTC day, as the text the slot engine reads ("start,end,…" in epoch minutes
 * rounded outward, each interval clipped to the day), rebuilt from calendar_busy by every sync that writes it.
 * Availability reads a host's calendars as a few rows per calendar and day instead of a row per event, each turned
 * into text (about six times cheaper for PostgreSQL at 2,000 events in 31 days). `counts` mirrors the calendar's
 * `busy` flag, as calendar_busy's does; deleting a calendar or its connection deletes its days (cascade).
 */
export class Migration20261127000905_calendar_busy_days extends Migration {
  override name = 'Migration20261127000905_calendar_busy_days';

  override async up(): Promise<void> {
    this.addSql(`create table calendar_busy_day (
      calendar_id text not null references connected_calendar (id) on delete cascade,
      host_id text not null references app_user (id) on delete cascade,
      day integer not null,
      counts boolean not null,
      minutes text not null,
      primary key (calendar_id, day)
    );`);
    this.addSql('create index calendar_busy_day_host_idx on calendar_busy_day (host_id, day) include (minutes) where (counts);');
    this.addSql(`insert into calendar_busy_day (calendar_id, host_id, day, counts, minutes)
      select cb.calendar_id, cb.host_id, d.day, cal.busy,
             string_agg(greatest(m.s, d.day * 1440) || ',' || least(m.e, d.day * 1440 + 1440), ',')
        from calendar_busy cb
        join connected_calendar cal on cal.id = cb.calendar_id
        cross join lateral (select floor(date_part('epoch', lower(cb.busy)) / 60)::int as s,
                                   ceil(date_part('epoch', upper(cb.busy)) / 60)::int as e) m
        cross join lateral generate_series(floor(m.s / 1440.0)::int, floor((m.e - 1) / 1440.0)::int) as d(day)
       where m.e > m.s
       group by cb.calendar_id, cb.host_id, d.day, cal.busy;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table calendar_busy_day;');
  }
}
