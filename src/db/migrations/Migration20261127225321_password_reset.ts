import { Migration } from '@mikro-orm/migrations';

/**
 * Password reset by an e-mailed link. `password_reset_token` holds only the SHA-256 of each link's `pwr_` token,
 * single use and short-lived (the rows of a user go when one is used). `account_message` is the e-mail outbox of
 * account mail (booking_message is tied to a booking), worked like it: claimed with a lease, retried, kept without
 * an SMTP server. `sealed_link` is the reset token sealed (src/lib/sealed-secrets.ts) until the mail is sent, fails
 * for good, or its link is used or expires.
 */
export class Migration20261127225321_password_reset extends Migration {
  override name = 'Migration20261127225321_password_reset';

  override async up(): Promise<void> {
    this.addSql(`create table password_reset_token (
      token_hash text primary key,
      user_id text not null references app_user (id) on delete cascade,
      created_at timestamptz not null,
      expires_at timestamptz not null
    );`);
    this.addSql('create index password_reset_token_user_idx on password_reset_token (user_id);');
    this.addSql(`create table account_message (
      id text primary key,
      user_id text not null references app_user (id) on delete cascade,
      kind text not null check (kind in ('password_reset')),
      recipient text not null,
      status text not null check (status in ('queued', 'sent', 'failed', 'skipped')),
      next_attempt_at timestamptz,
      attempts integer not null default 0,
      last_error text,
      server_reply text,
      sent_at timestamptz,
      facts jsonb not null,
      sealed_link text check (sealed_link ~ '^v[0-9]+\\.'),
      created_at timestamptz not null,
      check ((status = 'queued') = (next_attempt_at is not null))
    );`);
    this.addSql(`create index account_message_due_idx on account_message (next_attempt_at) where status = 'queued';`);
    this.addSql('create index account_message_user_idx on account_message (user_id, created_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table account_message;');
    this.addSql('drop table password_reset_token;');
  }
}
