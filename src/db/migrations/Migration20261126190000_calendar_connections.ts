import { Migration } from '@mikro-orm/migrations';

/**
 * Connected calendars: a user's connections (an iCalendar feed today), the calendars each offers, and the busy
 * intervals their events expand to. The feed's URL is a secret: stored sealed (src/lib/sealed-secrets.ts, purpose
 * `calendar-credentials`), with a masked form to show. A connection is synced by whichever instance claims it
 * (`next_sync_at` due, `lease_until` past), as webhook deliveries are. Busy rows are replaced per connection in
 * one transaction; `counts` mirrors their calendar's `busy` flag so the slot engine reads one indexed table.
 */
export class Migration20261126190000_calendar_connections extends Migration {
  override name = 'Migration20261126190000_calendar_connections';

  override async up(): Promise<void> {
    this.addSql(`create table calendar_connection (
      id text primary key,
      owner_id text not null references app_user (id) on delete cascade,
      kind text not null check (kind in ('ics', 'caldav')),
      name text not null,
      secret text not null check (secret ~ '^v[0-9]+\\.'),
      masked_url text not null,
      status text not null default 'pending' check (status in ('pending', 'ok', 'error')),
      last_synced_at timestamptz,
      last_error text,
      etag text,
      last_modified text,
      last_attempt_at timestamptz,
      next_sync_at timestamptz not null,
      lease_until timestamptz,
      created_at timestamptz not null
    );`);
    this.addSql('create index calendar_connection_owner_created_idx on calendar_connection (owner_id, created_at, id);');
    this.addSql('create index calendar_connection_due_idx on calendar_connection (next_sync_at);');
    this.addSql(`create table connected_calendar (
      id text primary key,
      connection_id text not null references calendar_connection (id) on delete cascade,
      name text not null,
      busy boolean not null default true,
      booking_target boolean not null default false
    );`);
    this.addSql('create index connected_calendar_connection_idx on connected_calendar (connection_id);');
    this.addSql(`create table calendar_busy (
      host_id text not null references app_user (id) on delete cascade,
      connection_id text not null references calendar_connection (id) on delete cascade,
      calendar_id text not null references connected_calendar (id) on delete cascade,
      busy tstzrange not null,
      counts boolean not null default true
    );`);
    this.addSql('create index calendar_busy_host_busy_idx on calendar_busy using gist (host_id, busy) where (counts);');
    this.addSql('create index calendar_busy_connection_idx on calendar_busy (connection_id);');
    this.addSql('create index calendar_busy_calendar_idx on calendar_busy (calendar_id);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table calendar_busy;');
    this.addSql('drop table connected_calendar;');
    this.addSql('drop table calendar_connection;');
  }
}
