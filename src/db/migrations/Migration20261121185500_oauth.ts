import { Migration } from '@mikro-orm/migrations';

/**
 * The OAuth 2.0 authorization server (clients, grants, codes, token families) and first-party sign-in
 * (sessions, failed sign-in attempts). Every secret column holds a SHA-256 hash, never the value.
 */
export class Migration20261121185500_oauth extends Migration {
  override name = 'Migration20261121185500_oauth';

  override async up(): Promise<void> {
    this.addSql(`create table oauth_client (
      id text primary key,
      client_id text not null unique,
      name text not null,
      redirect_uris text[] not null check (cardinality(redirect_uris) between 1 and 10),
      type text not null check (type in ('public', 'confidential')),
      secret_hash text,
      owner_user_id text references app_user (id) on delete cascade,
      dynamically_registered boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint oauth_client_secret_matches_type check ((type = 'confidential') = (secret_hash is not null))
    );`);
    this.addSql('create index oauth_client_owner_idx on oauth_client (owner_user_id, created_at) where owner_user_id is not null;');

    // One grant per approved authorization: the user's consent to one client, for these scopes and this
    // resource. It owns its codes and its token family; revoking it kills all of them.
    this.addSql(`create table oauth_grant (
      id text primary key,
      user_id text not null references app_user (id) on delete cascade,
      client_id text not null references oauth_client (id) on delete cascade,
      scopes text[] not null check (cardinality(scopes) >= 1),
      resource text,
      created_at timestamptz not null default now(),
      revoked_at timestamptz,
      revoked_reason text
    );`);
    this.addSql('create index oauth_grant_user_idx on oauth_grant (user_id, created_at desc);');
    this.addSql('create index oauth_grant_client_idx on oauth_grant (client_id);');

    this.addSql(`create table oauth_authorization_code (
      id text primary key,
      code_hash text not null unique,
      grant_id text not null references oauth_grant (id) on delete cascade,
      redirect_uri text not null,
      redirect_uri_in_request boolean not null,
      code_challenge text,
      code_challenge_method text check (code_challenge_method in ('S256')),
      expires_at timestamptz not null,
      consumed_at timestamptz,
      created_at timestamptz not null default now(),
      check ((code_challenge is null) = (code_challenge_method is null))
    );`);
    this.addSql('create index oauth_authorization_code_grant_idx on oauth_authorization_code (grant_id);');

    this.addSql(`create table oauth_refresh_token (
      id text primary key,
      token_hash text not null unique,
      grant_id text not null references oauth_grant (id) on delete cascade,
      expires_at timestamptz not null,
      revoked_at timestamptz,
      rotated_at timestamptz,
      replaced_by text references oauth_refresh_token (id) on delete set null,
      created_at timestamptz not null default now()
    );`);
    this.addSql('create index oauth_refresh_token_grant_idx on oauth_refresh_token (grant_id);');

    this.addSql(`create table oauth_access_token (
      id text primary key,
      token_hash text not null unique,
      grant_id text not null references oauth_grant (id) on delete cascade,
      refresh_token_id text references oauth_refresh_token (id) on delete set null,
      scopes text[] not null,
      resource text,
      expires_at timestamptz not null,
      revoked_at timestamptz,
      created_at timestamptz not null default now()
    );`);
    this.addSql('create index oauth_access_token_grant_idx on oauth_access_token (grant_id);');
    this.addSql('create index oauth_access_token_refresh_idx on oauth_access_token (refresh_token_id);');

    this.addSql(`create table user_session (
      id text primary key,
      id_hash text not null unique,
      user_id text not null references app_user (id) on delete cascade,
      csrf_token text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null
    );`);
    this.addSql('create index user_session_user_idx on user_session (user_id);');

    this.addSql(`create table login_attempt (
      id text primary key,
      email_key text not null,
      ip text not null,
      attempted_at timestamptz not null
    );`);
    this.addSql('create index login_attempt_email_idx on login_attempt (email_key, attempted_at);');
    this.addSql('create index login_attempt_ip_idx on login_attempt (ip, attempted_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists login_attempt;');
    this.addSql('drop table if exists user_session;');
    this.addSql('drop table if exists oauth_access_token;');
    this.addSql('drop table if exists oauth_refresh_token;');
    this.addSql('drop table if exists oauth_authorization_code;');
    this.addSql('drop table if exists oauth_grant;');
    this.addSql('drop table if exists oauth_client;');
  }
}
