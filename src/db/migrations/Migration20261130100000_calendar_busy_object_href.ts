import { Migration } from '@mikro-orm/migrations';

/**
 * Incremental CalDAV sync (RFC 6578): `object_href` is the calendar object (its path on the server) a busy row came
 * from, so a sync that learns one object changed or went replaces only that object's rows; null for a feed's rows.
 * The rows stored so far name no object: every CalDAV calendar is read whole at its next sync (`read_at` cleared),
 * which fills it in.
 */
export class Migration20261130100000_calendar_busy_object_href extends Migration {
  override name = 'Migration20261130100000_calendar_busy_object_href';

  override async up(): Promise<void> {
    this.addSql('alter table calendar_busy add column object_href text;');
    this.addSql('drop index calendar_busy_calendar_idx;');
    this.addSql('create index calendar_busy_calendar_object_idx on calendar_busy (calendar_id, object_href);');
    this.addSql('update connected_calendar set read_at = null where remote_url is not null;');
  }

  override async down(): Promise<void> {
    this.addSql('drop index calendar_busy_calendar_object_idx;');
    this.addSql('create index calendar_busy_calendar_idx on calendar_busy (calendar_id);');
    this.addSql('alter table calendar_busy drop column object_href;');
  }
}
