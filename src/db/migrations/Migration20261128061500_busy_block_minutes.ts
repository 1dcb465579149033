import { Migration } from '@mikro-orm/migrations';

/**
 * A busy block as availability reads it, written once with the block instead of computed at every read: `busy_minutes`
 * is its busy range in epoch minutes rounded outward ("start,end"), `start_seats` the start minute (rounded down) and
 * the seats taken ("start,seats"), what the limits count. Generated, so no writer can let them drift from `busy`,
 * `start_at` and `seats_taken`. Each is carried in the index its read scans (the exclusion constraint's, the limits'),
 * so the scans stay index-only and PostgreSQL only concatenates stored text: turning each block's range into text was
 * half of PostgreSQL's work for a host with 500 blocks. The epoch is taken of the distance from 1970, an interval,
 * because `date_part` of a timestamptz is not immutable (for other fields it depends on the session's zone).
 */
const minute = (instant: string, round: 'floor' | 'ceil') => `(${round}(date_part('epoch', ${instant} - 'epoch'::timestamptz) / 60)::int)::text`;

export class Migration20261128061500_busy_block_minutes extends Migration {
  override name = 'Migration20261128061500_busy_block_minutes';

  override async up(): Promise<void> {
    this.addSql(`alter table busy_block
      add column busy_minutes text not null generated always as (${minute('lower(busy)', 'floor')} || ',' || ${minute('upper(busy)', 'ceil')}) stored,
      add column start_seats text not null generated always as (${minute('start_at', 'floor')} || ',' || seats_taken::text) stored;`);
    this.addSql(`alter table busy_block add constraint busy_block_no_overlap_minutes
      exclude using gist (host_id with =, busy with &&) include (hold_expires_at, busy_minutes) where (active);`);
    this.addSql('alter table busy_block drop constraint busy_block_no_overlap;');
    this.addSql('alter table busy_block rename constraint busy_block_no_overlap_minutes to busy_block_no_overlap;');
    this.addSql('drop index busy_block_limit_idx;');
    this.addSql('create index busy_block_limit_idx on busy_block (host_id, event_type_id, start_at) include (start_seats, hold_expires_at) where active;');
  }

  override async down(): Promise<void> {
    this.addSql('drop index busy_block_limit_idx;');
    this.addSql(
      'create index busy_block_limit_idx on busy_block (host_id, event_type_id, start_at) include (seats_taken, hold_expires_at) where active;',
    );
    this.addSql(`alter table busy_block add constraint busy_block_no_overlap_holds
      exclude using gist (host_id with =, busy with &&) include (hold_expires_at) where (active);`);
    this.addSql('alter table busy_block drop constraint busy_block_no_overlap;');
    this.addSql('alter table busy_block rename constraint busy_block_no_overlap_holds to busy_block_no_overlap;');
    this.addSql('alter table busy_block drop column busy_minutes, drop column start_seats;');
  }
}
