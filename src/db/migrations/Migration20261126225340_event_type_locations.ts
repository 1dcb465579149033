import { Migration } from '@mikro-orm/migrations';

/**
 * What an event type says about itself and where its meetings happen: `description` (plain text, at most 2000
 * characters) and `locations` (a JSON array of at most 10 places, each `{kind, …}`). Existing event types have
 * neither; their bookings keep the location the invitee typed, as before.
 */
export class Migration20261126225340_event_type_locations extends Migration {
  override name = 'Migration20261126225340_event_type_locations';

  override async up(): Promise<void> {
    this.addSql(`alter table event_type
      add column description text check (char_length(description) <= 2000),
      add column locations jsonb not null default '[]'
        check (jsonb_typeof(locations) = 'array' and jsonb_array_length(locations) <= 10);`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table event_type drop column locations, drop column description;');
  }
}
