import { Migration } from '@mikro-orm/migrations';

/**
 * The contacts list index carries every column a page returns (and search_text, which `q` filters on), so a
 * page is an index-only scan: an offset deep into a large list skips index entries instead of fetching heap
 * rows or sorting (docs/performance.md, "Figures behind the code"). Same name and key.
 */
export class Migration20261121192200_contact_covering_index extends Migration {
  override name = 'Migration20261121192200_contact_covering_index';

  override async up(): Promise<void> {
    this.addSql('drop index if exists contact_owner_activity_idx;');
    this.addSql(`create index contact_owner_activity_idx on contact (owner_id, last_activity_at desc nulls last, email_key)
      include (email, name, kind, status, meetings, no_shows, first_seen_at, search_text);`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists contact_owner_activity_idx;');
    this.addSql('create index contact_owner_activity_idx on contact (owner_id, last_activity_at desc nulls last, email_key);');
  }
}
