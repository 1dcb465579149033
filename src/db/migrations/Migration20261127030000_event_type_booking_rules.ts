import { Migration } from '@mikro-orm/migrations';

/**
 * Booking rules of an event type: a booking window (rolling days from today, or a date range, in each host's
 * zone), limits per day, week and month (counted per host over the event type's active busy blocks, which pending
 * bookings hold too), the invitee's cancel and reschedule notice, approval by the host, and whether invitees may
 * book a series. The partial index serves the limits' count, which runs under the hosts' calendar locks.
 */
export class Migration20261127030000_event_type_booking_rules extends Migration {
  override name = 'Migration20261127030000_event_type_booking_rules';

  override async up(): Promise<void> {
    this.addSql(`alter table event_type
      add column booking_window_days integer check (booking_window_days between 1 and 3650),
      add column booking_window_start date,
      add column booking_window_end date,
      add column limit_per_day integer check (limit_per_day >= 1),
      add column limit_per_week integer check (limit_per_week >= 1),
      add column limit_per_month integer check (limit_per_month >= 1),
      add column cancel_notice_min integer not null default 0 check (cancel_notice_min >= 0),
      add column reschedule_notice_min integer not null default 0 check (reschedule_notice_min >= 0),
      add column requires_confirmation boolean not null default false,
      add column recurrence_max_count integer check (recurrence_max_count between 2 and 52),
      add constraint event_type_booking_window_check check (
        (booking_window_start is null) = (booking_window_end is null)
        and (booking_window_end >= booking_window_start) is not false
        and (booking_window_days is null or booking_window_start is null)
      );`);
    this.addSql(
      'create index busy_block_limit_idx on busy_block (host_id, event_type_id, start_at) include (seats_taken) where active;',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index busy_block_limit_idx;');
    this.addSql(`alter table event_type
      drop constraint event_type_booking_window_check,
      drop column booking_window_days, drop column booking_window_start, drop column booking_window_end,
      drop column limit_per_day, drop column limit_per_week, drop column limit_per_month,
      drop column cancel_notice_min, drop column reschedule_notice_min, drop column requires_confirmation,
      drop column recurrence_max_count;`);
  }
}
