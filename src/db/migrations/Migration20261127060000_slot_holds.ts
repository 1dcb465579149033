import { Migration } from '@mikro-orm/migrations';

/**
 * Slot holds: a hold keeps a slot for the caller who made it until `expires_at`, as busy blocks of its own under
 * the one exclusion constraint, so nobody else can book or hold an overlapping time. An exclusion constraint
 * cannot depend on now(): readers leave out blocks whose hold has expired (`hold_expires_at`, carried in the
 * constraint's index and the limits' index so their scans stay index-only), and every writer deletes a host's
 * expired hold blocks under the host's lock before inserting. The blocks' foreign key is checked at commit, so a
 * hold's blocks may be written before its row.
 */
export class Migration20261127060000_slot_holds extends Migration {
  override name = 'Migration20261127060000_slot_holds';

  override async up(): Promise<void> {
    this.addSql(`create table slot_hold (
      id text primary key,
      event_type_id text not null references event_type (id) on delete cascade,
      host_id text not null references app_user (id) on delete cascade,
      holder text not null,
      client_key text,
      start_at timestamptz not null,
      end_at timestamptz not null,
      duration_min integer not null check (duration_min > 0),
      expires_at timestamptz not null,
      created_at timestamptz not null,
      check (start_at < end_at),
      check (created_at < expires_at)
    );`);
    this.addSql('create index slot_hold_expires_idx on slot_hold (expires_at);');
    this.addSql('create index slot_hold_client_idx on slot_hold (client_key, expires_at) where client_key is not null;');
    this.addSql(`alter table busy_block
      add column hold_id text references slot_hold (id) on delete cascade deferrable initially deferred,
      add column hold_expires_at timestamptz,
      add constraint busy_block_hold_check check ((hold_id is null) = (hold_expires_at is null));`);
    this.addSql('create index busy_block_hold_idx on busy_block (hold_id) where hold_id is not null;');
    this.addSql('create index busy_block_hold_expiry_idx on busy_block (host_id, hold_expires_at) where hold_id is not null;');
    this.addSql(`alter table busy_block add constraint busy_block_no_overlap_holds
      exclude using gist (host_id with =, busy with &&) include (hold_expires_at) where (active);`);
    this.addSql('alter table busy_block drop constraint busy_block_no_overlap;');
    this.addSql('alter table busy_block rename constraint busy_block_no_overlap_holds to busy_block_no_overlap;');
    this.addSql('drop index busy_block_limit_idx;');
    this.addSql(
      'create index busy_block_limit_idx on busy_block (host_id, event_type_id, start_at) include (seats_taken, hold_expires_at) where active;',
    );
  }

  override async down(): Promise<void> {
    this.addSql('delete from busy_block where hold_id is not null;');
    this.addSql('drop index busy_block_limit_idx;');
    this.addSql('create index busy_block_limit_idx on busy_block (host_id, event_type_id, start_at) include (seats_taken) where active;');
    this.addSql(`alter table busy_block add constraint busy_block_no_overlap_plain
      exclude using gist (host_id with =, busy with &&) where (active);`);
    this.addSql('alter table busy_block drop constraint busy_block_no_overlap;');
    this.addSql('alter table busy_block rename constraint busy_block_no_overlap_plain to busy_block_no_overlap;');
    this.addSql('alter table busy_block drop constraint busy_block_hold_check, drop column hold_expires_at, drop column hold_id;');
    this.addSql('drop table slot_hold;');
  }
}
