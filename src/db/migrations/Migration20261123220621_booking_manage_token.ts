import { Migration } from '@mikro-orm/migrations';

/**
 * The invitee's private manage link (/book/manage/<secret>) is a bearer secret: only its SHA-256 (hex) is kept,
 * and the link is found by that hash (unique). Bookings made through the API, or before this column, have none.
 */
export class Migration20261123220621_booking_manage_token extends Migration {
  override name = 'Migration20261123220621_booking_manage_token';

  override async up(): Promise<void> {
    this.addSql('alter table booking add column manage_token_hash text;');
    this.addSql('create unique index booking_manage_token_hash_key on booking (manage_token_hash);');
  }

  override async down(): Promise<void> {
    this.addSql('alter table booking drop column manage_token_hash;');
  }
}
