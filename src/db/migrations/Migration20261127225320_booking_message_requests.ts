import { Migration } from '@mikro-orm/migrations';

/**
 * Two more kinds of booking e-mail for bookings that wait for the host's confirmation: `request` (the booking was
 * asked for) and `decline` (the host declined it, or nobody confirmed it before its start).
 */
export class Migration20261127225320_booking_message_requests extends Migration {
  override name = 'Migration20261127225320_booking_message_requests';

  override async up(): Promise<void> {
    this.addSql(`alter table booking_message drop constraint booking_message_kind_check,
      add constraint booking_message_kind_check check (kind in ('confirmation', 'update', 'cancellation', 'reminder', 'request', 'decline'));`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from booking_message where kind in ('request', 'decline');`);
    this.addSql(`alter table booking_message drop constraint booking_message_kind_check,
      add constraint booking_message_kind_check check (kind in ('confirmation', 'update', 'cancellation', 'reminder'));`);
  }
}
