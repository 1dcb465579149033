import { Migration } from '@mikro-orm/migrations';

/**
 * CalDAV connections: a connection keeps its discovered calendar home; each of its calendars its collection URL,
 * the ctag / sync-token of its last read and when that read was, so an unchanged calendar is not read again.
 */
export class Migration20261127010000_caldav extends Migration {
  override name = 'Migration20261127010000_caldav';

  override async up(): Promise<void> {
    this.addSql('alter table calendar_connection add column home_url text;');
    this.addSql('alter table connected_calendar add column remote_url text;');
    this.addSql('alter table connected_calendar add column ctag text;');
    this.addSql('alter table connected_calendar add column sync_token text;');
    this.addSql('alter table connected_calendar add column read_at timestamptz;');
    this.addSql(
      'create unique index connected_calendar_remote_idx on connected_calendar (connection_id, remote_url) where remote_url is not null;',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index connected_calendar_remote_idx;');
    this.addSql('alter table connected_calendar drop column remote_url, drop column ctag, drop column sync_token, drop column read_at;');
    this.addSql('alter table calendar_connection drop column home_url;');
  }
}
