import { Migration } from '@mikro-orm/migrations';

/**
 * Bookings written back to their hosts' CalDAV calendars. `booking_calendar_event` is both the outbox and the
 * state, one row per booking and host: inserted or made due (`next_attempt_at`, `revision` + 1) in the booking's
 * own transaction, worked by whichever instance claims it (`lease_until`), as webhook deliveries are. `wanted`
 * says whether the event should exist (false after a cancellation); `uid` is set when first claimed.
 */
export class Migration20261127020000_booking_calendar_events extends Migration {
  override name = 'Migration20261127020000_booking_calendar_events';

  override async up(): Promise<void> {
    this.addSql(`create table booking_calendar_event (
      id text primary key,
      booking_id text not null references booking (id) on delete cascade,
      host_id text not null references app_user (id) on delete cascade,
      calendar_id text not null references connected_calendar (id) on delete cascade,
      uid text,
      sequence integer not null default 0,
      wanted boolean not null default true,
      status text not null default 'pending' check (status in ('pending', 'written', 'deleted', 'failed')),
      last_error text,
      attempts integer not null default 0,
      revision integer not null default 1,
      next_attempt_at timestamptz,
      lease_until timestamptz,
      updated_at timestamptz not null,
      constraint booking_calendar_event_booking_host_key unique (booking_id, host_id)
    );`);
    this.addSql(
      'create index booking_calendar_event_due_idx on booking_calendar_event (next_attempt_at) where next_attempt_at is not null;',
    );
    this.addSql('create index booking_calendar_event_calendar_idx on booking_calendar_event (calendar_id);');
    this.addSql('create index booking_calendar_event_host_uid_idx on booking_calendar_event (host_id) include (uid) where uid is not null;');
  }

  override async down(): Promise<void> {
    this.addSql('drop table booking_calendar_event;');
  }
}
