import { Migration } from '@mikro-orm/migrations';

/** The core schema: users, tokens, event types, schedules, bookings with their busy blocks, leads, contacts. */
export class Migration20261121000000_initial extends Migration {
  override name = 'Migration20261121000000_initial';

  override async up(): Promise<void> {
    this.addSql('create extension if not exists btree_gist;');
    this.addSql('create extension if not exists pg_trgm;');

    this.addSql(`create table app_user (
      id text primary key,
      email text not null,
      name text,
      slug text not null,
      timezone text not null,
      plan text not null check (plan in ('free', 'pro', 'team')),
      password_hash text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );`);
    this.addSql('create unique index app_user_email_key on app_user (lower(email));');
    this.addSql('create unique index app_user_slug_key on app_user (slug);');

    this.addSql(`create table personal_access_token (
      id text primary key,
      user_id text not null references app_user (id) on delete cascade,
      name text not null,
      token_hash text not null unique,
      display_prefix text not null,
      scopes text[] not null,
      expires_at timestamptz,
      last_used_at timestamptz,
      revoked_at timestamptz,
      created_at timestamptz not null default now()
    );`);
    this.addSql('create index personal_access_token_user_idx on personal_access_token (user_id, created_at desc);');

    this.addSql(`create table event_type (
      id text primary key,
      owner_id text not null references app_user (id) on delete cascade,
      name text not null,
      slug text not null,
      kind text not null check (kind in ('one_on_one', 'group', 'round_robin', 'collective')),
      durations_min integer[] not null check (cardinality(durations_min) between 1 and 12),
      buffer_before_min integer not null default 0 check (buffer_before_min between 0 and 1440),
      buffer_after_min integer not null default 0 check (buffer_after_min between 0 and 1440),
      min_notice_min integer not null default 0 check (min_notice_min >= 0),
      slot_interval_min integer check (slot_interval_min between 5 and 1440),
      seats_per_slot integer not null default 1 check (seats_per_slot >= 1),
      color text not null default '#2563eb',
      active boolean not null default true,
      secret boolean not null default false,
      private_link_token text unique,
      organization_id text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (owner_id, slug)
    );`);
    this.addSql('create index event_type_owner_idx on event_type (owner_id, created_at, id);');

    this.addSql(`create table event_type_host (
      event_type_id text not null references event_type (id) on delete cascade,
      user_id text not null references app_user (id) on delete cascade,
      primary key (event_type_id, user_id)
    );`);
    this.addSql('create index event_type_host_user_idx on event_type_host (user_id);');

    this.addSql(`create table availability_schedule (
      user_id text primary key references app_user (id) on delete cascade,
      weekly jsonb not null,
      overrides jsonb not null default '[]',
      updated_at timestamptz not null default now()
    );`);

    // One row per host per booked slot; its range includes the event type's buffers.
    // The exclusion constraint is what makes a double booking impossible, whatever the application does.
    this.addSql(`create table busy_block (
      id text primary key,
      host_id text not null references app_user (id) on delete cascade,
      event_type_id text not null references event_type (id) on delete cascade,
      start_at timestamptz not null,
      end_at timestamptz not null,
      busy tstzrange not null,
      seats_taken integer not null default 1 check (seats_taken >= 0),
      active boolean not null default true,
      created_at timestamptz not null default now(),
      check (start_at < end_at),
      check (not isempty(busy)),
      constraint busy_block_no_overlap exclude using gist (host_id with =, busy with &&) where (active)
    );`);

    this.addSql(`create table booking (
      id text primary key,
      owner_id text not null references app_user (id) on delete cascade,
      host_id text not null references app_user (id) on delete cascade,
      event_type_id text not null references event_type (id) on delete cascade,
      start_at timestamptz not null,
      end_at timestamptz not null,
      duration_min integer not null check (duration_min > 0),
      status text not null default 'active' check (status in ('active', 'canceled')),
      invitee_name text not null,
      invitee_email text not null,
      invitee_timezone text not null,
      invitee_phone text,
      invitee_sms_opt_in boolean not null default false,
      guests text[] not null default '{}',
      answers jsonb not null default '[]',
      notes text,
      location_kind text,
      location_value text,
      no_show boolean not null default false,
      canceled_at timestamptz,
      cancel_reason text,
      canceled_by text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (start_at < end_at)
    );`);
    this.addSql('create index booking_owner_start_idx on booking (owner_id, start_at desc, id desc);');
    this.addSql('create index booking_owner_email_idx on booking (owner_id, lower(invitee_email));');
    this.addSql('create index booking_event_type_idx on booking (event_type_id, start_at);');

    this.addSql(`create table booking_busy_block (
      booking_id text not null references booking (id) on delete cascade,
      busy_block_id text not null references busy_block (id) on delete cascade,
      primary key (booking_id, busy_block_id)
    );`);
    this.addSql('create index booking_busy_block_block_idx on booking_busy_block (busy_block_id);');

    this.addSql(`create table lead (
      id text primary key,
      owner_id text not null references app_user (id) on delete cascade,
      event_type_id text not null references event_type (id) on delete cascade,
      name text,
      email text not null,
      timezone text not null,
      status text not null default 'new' check (status in ('new', 'contacted', 'qualified', 'lost')),
      booking_id text references booking (id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      completed_at timestamptz
    );`);
    this.addSql('create index lead_owner_created_idx on lead (owner_id, created_at desc, id desc);');
    this.addSql('create index lead_owner_email_idx on lead (owner_id, lower(email));');
    this.addSql('create index lead_unbooked_idx on lead (event_type_id, lower(email)) where booking_id is null;');

    // Contacts are derived from bookings and leads; this projection keeps a page an index scan.
    this.addSql(`create table contact (
      owner_id text not null references app_user (id) on delete cascade,
      email_key text not null,
      email text not null,
      name text,
      kind text not null check (kind in ('client', 'lead')),
      status text not null,
      meetings integer not null default 0,
      no_shows integer not null default 0,
      last_activity_at timestamptz,
      first_seen_at timestamptz,
      search_text text not null,
      primary key (owner_id, email_key)
    );`);
    this.addSql('create index contact_owner_activity_idx on contact (owner_id, last_activity_at desc nulls last, email_key);');
    this.addSql('create index contact_owner_kind_activity_idx on contact (owner_id, kind, last_activity_at desc nulls last, email_key);');
    this.addSql('create index contact_search_trgm_idx on contact using gin (search_text gin_trgm_ops);');

    this.addSql(`create table idempotency_key (
      principal text not null,
      key text not null,
      request_hash text not null,
      response_status integer not null,
      response_body jsonb not null,
      created_at timestamptz not null default now(),
      primary key (principal, key)
    );`);

    // Same layout rate-limiter-flexible creates; owned by a migration so every instance starts with it.
    this.addSql(`create table rate_limit (
      key varchar(255) primary key,
      points integer not null default 0,
      expire bigint
    );`);
  }
}
