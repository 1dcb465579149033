import { Migration } from '@mikro-orm/migrations';

/**
 * The e-mail outbox of bookings: one row per message and recipient (confirmation, update, cancellation, reminder
 * to the invitee, each guest or the host), written in the transaction of the change that caused it and sent by
 * whichever instance claims it (`next_attempt_at` due; the claim moves it a lease ahead), as webhook deliveries
 * are. `facts` is the booking as it was when the message was queued, so a late send says what was true then;
 * `manage_link` is the invitee's manage secret, sealed (src/lib/sealed-secrets.ts). `booking.sequence` is the
 * iCalendar SEQUENCE of the booking's event: every reschedule and cancellation adds one. `position` orders a
 * booking's messages as they were written.
 */
export class Migration20261127020000_booking_messages extends Migration {
  override name = 'Migration20261127020000_booking_messages';

  override async up(): Promise<void> {
    this.addSql('alter table booking add column sequence integer not null default 0 check (sequence >= 0);');
    this.addSql(`create table booking_message (
      id text primary key,
      position bigint generated always as identity,
      booking_id text not null references booking (id) on delete cascade,
      owner_id text not null references app_user (id) on delete cascade,
      kind text not null check (kind in ('confirmation', 'update', 'cancellation', 'reminder')),
      audience text not null check (audience in ('invitee', 'guest', 'host')),
      recipient text not null,
      time_zone text not null,
      status text not null check (status in ('scheduled', 'queued', 'sent', 'failed', 'skipped')),
      scheduled_for timestamptz not null,
      next_attempt_at timestamptz,
      attempts integer not null default 0,
      last_error text,
      sent_at timestamptz,
      offset_min integer check (offset_min between 0 and 43200),
      sequence integer not null default 0,
      facts jsonb not null,
      manage_link text check (manage_link ~ '^v[0-9]+\\.'),
      resent_from text references booking_message (id) on delete set null,
      created_at timestamptz not null,
      check ((status in ('scheduled', 'queued')) = (next_attempt_at is not null))
    );`);
    this.addSql('create index booking_message_booking_idx on booking_message (booking_id, position);');
    this.addSql(`create index booking_message_due_idx on booking_message (next_attempt_at) where status in ('scheduled', 'queued');`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table booking_message;');
    this.addSql('alter table booking drop column sequence;');
  }
}
