import { Migration } from '@mikro-orm/migrations';

/**
 * A booking series: the recurrence an invitee booked, and which bookings are its occurrences (`booking.series_id`).
 * Each occurrence stays an ordinary booking; the series row only keeps the rule, the zone its wall-clock time is
 * kept in and the host chosen for every occurrence. Deleting a series (only ever by a cascade) leaves its bookings.
 */
export class Migration20261126225800_booking_series extends Migration {
  override name = 'Migration20261126225800_booking_series';

  override async up(): Promise<void> {
    this.addSql(`create table booking_series (
      id text primary key,
      owner_id text not null references app_user (id) on delete cascade,
      event_type_id text not null references event_type (id) on delete cascade,
      host_id text not null references app_user (id) on delete cascade,
      frequency text not null check (frequency in ('daily', 'weekly', 'monthly')),
      repeat_interval integer not null check (repeat_interval between 1 and 4),
      occurrence_count integer not null check (occurrence_count between 2 and 52),
      time_zone text not null,
      first_start_at timestamptz not null,
      created_at timestamptz not null default now()
    );`);
    this.addSql('create index booking_series_owner_idx on booking_series (owner_id, created_at desc);');
    this.addSql('alter table booking add column series_id text references booking_series (id) on delete set null;');
    this.addSql('create index booking_series_member_idx on booking (series_id, start_at) where series_id is not null;');
  }

  override async down(): Promise<void> {
    this.addSql('drop index booking_series_member_idx;');
    this.addSql('alter table booking drop column series_id;');
    this.addSql('drop table booking_series;');
  }
}
