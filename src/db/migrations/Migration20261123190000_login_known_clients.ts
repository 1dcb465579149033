import { Migration } from '@mikro-orm/migrations';

/**
 * Sign-in throttling without a lockout button: where each user has signed in successfully before (a client
 * address, or the hash of a device cookie), so the owner is not held back by failures others cause, and an
 * index for counting failures per (e-mail, address).
 */
export class Migration20261123190000_login_known_clients extends Migration {
  override name = 'Migration20261123190000_login_known_clients';

  override async up(): Promise<void> {
    this.addSql(`create table login_known_client (
      user_id text not null references app_user (id) on delete cascade,
      client_key text not null,
      last_success_at timestamptz not null,
      primary key (user_id, client_key)
    );`);
    this.addSql('create index login_attempt_email_ip_idx on login_attempt (email_key, ip, attempted_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists login_attempt_email_ip_idx;');
    this.addSql('drop table if exists login_known_client;');
  }
}
