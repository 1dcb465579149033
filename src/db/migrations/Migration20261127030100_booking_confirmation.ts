import { Migration } from '@mikro-orm/migrations';

/**
 * Bookings of event types that need the host's approval start `pending` (holding their time like an active one)
 * and become `active` when confirmed or `declined` when the host declines or the start passes unconfirmed. The
 * partial index is what the expiry worker scans: pending bookings by start.
 */
export class Migration20261127030100_booking_confirmation extends Migration {
  override name = 'Migration20261127030100_booking_confirmation';

  override async up(): Promise<void> {
    this.addSql('alter table booking drop constraint booking_status_check;');
    this.addSql(`alter table booking
      add constraint booking_status_check check (status in ('active', 'canceled', 'pending', 'declined')),
      add column declined_at timestamptz,
      add column decline_reason text;`);
    this.addSql(`create index booking_pending_start_idx on booking (start_at) where status = 'pending';`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index booking_pending_start_idx;');
    this.addSql(`update booking set status = 'canceled', canceled_at = coalesce(declined_at, now()) where status = 'declined';`);
    this.addSql(`update booking set status = 'active' where status = 'pending';`);
    this.addSql(`alter table booking drop constraint booking_status_check, drop column declined_at, drop column decline_reason;`);
    this.addSql(`alter table booking add constraint booking_status_check check (status in ('active', 'canceled'));`);
  }
}
