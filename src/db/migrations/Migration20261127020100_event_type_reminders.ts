import { Migration } from '@mikro-orm/migrations';

/**
 * E-mail reminders of an event type: at most 3 `{offsetMin, to}` (`to`: invitee, host or both), each sent
 * `offsetMin` minutes before a booking's start. Every event type, existing ones included, starts with one
 * reminder a day before, to the invitee.
 */
export class Migration20261127020100_event_type_reminders extends Migration {
  override name = 'Migration20261127020100_event_type_reminders';

  override async up(): Promise<void> {
    this.addSql(`alter table event_type add column reminders jsonb not null
      default '[{"offsetMin": 1440, "to": "invitee"}]'
      check (jsonb_typeof(reminders) = 'array' and jsonb_array_length(reminders) <= 3);`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table event_type drop column reminders;');
  }
}
