import { Migration } from '@mikro-orm/migrations';

/** Keys shared by every instance of the service (e.g. the HMAC key of paging cursors); see src/lib/server-secret.ts. */
export class Migration20261121185400_server_secret extends Migration {
  override name = 'Migration20261121185400_server_secret';

  override async up(): Promise<void> {
    this.addSql(`create table server_secret (
      name text primary key,
      secret bytea not null check (length(secret) = 32),
      created_at timestamptz not null default now()
    );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists server_secret;');
  }
}
