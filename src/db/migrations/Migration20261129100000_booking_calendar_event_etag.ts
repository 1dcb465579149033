import { Migration } from '@mikro-orm/migrations';

/**
 * Conditional writes of bookings' calendar events (RFC 4791 / RFC 7232): `etag` is the ETag the calendar server gave
 * the copy the service last wrote (null when it gave none, or nothing is written), so a change or a deletion applies
 * only to that copy; `object_name` is the event's name in its calendar when `<booking id>.ics` was already taken
 * by a resource that is not the booking's (null: that default name); `host_edits` says that copy carries what the
 * host added to the event in their calendar, which the next write reads first to keep.
 */
export class Migration20261129100000_booking_calendar_event_etag extends Migration {
  override name = 'Migration20261129100000_booking_calendar_event_etag';

  override async up(): Promise<void> {
    this.addSql('alter table booking_calendar_event add column etag text, add column object_name text, add column host_edits boolean not null default false;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table booking_calendar_event drop column etag, drop column object_name, drop column host_edits;');
  }
}
