import { Migration } from '@mikro-orm/migrations';

/**
 * Deleting a booking sets `lead.booking_id` to null on its converted lead (`on delete set null`); without an index
 * PostgreSQL found that lead by reading the whole lead table, once per deleted booking. Deleting a user's bookings
 * (user deletion, the bench's reset of its booking user) took minutes for a few thousand bookings. Only converted
 * leads have a booking, so the index holds only those.
 */
export class Migration20261124000000_lead_booking_index extends Migration {
  override name = 'Migration20261124000000_lead_booking_index';

  override async up(): Promise<void> {
    this.addSql('create index lead_booking_idx on lead (booking_id) where booking_id is not null;');
  }
}
