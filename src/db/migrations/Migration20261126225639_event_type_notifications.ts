import { Migration } from '@mikro-orm/migrations';

/**
 * Whether an event type's bookings send e-mail (confirmations, updates, cancellations, reminders). Every event
 * type, existing ones included, starts with e-mail on.
 */
export class Migration20261126225639_event_type_notifications extends Migration {
  override name = 'Migration20261126225639_event_type_notifications';

  override async up(): Promise<void> {
    this.addSql('alter table event_type add column notifications boolean not null default true;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table event_type drop column notifications;');
  }
}
