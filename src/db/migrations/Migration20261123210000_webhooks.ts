import { Migration } from '@mikro-orm/migrations';

/**
 * Outbound webhooks: the endpoints users register, the events written in the same transaction as the change
 * they describe (the outbox), and one delivery per (event, endpoint) that the worker claims with
 * `for update skip locked`. An event keeps its exact body (text), so every attempt and redelivery sends the same
 * bytes. The signing secret is kept as is: Standard Webhooks signs with HMAC, so the
 * service must be able to recover it (a hash would not do); it is never returned after creation or rotation.
 */
export class Migration20261123210000_webhooks extends Migration {
  override name = 'Migration20261123210000_webhooks';

  override async up(): Promise<void> {
    this.addSql(`create table webhook_endpoint (
      id text primary key,
      owner_id text not null references app_user (id) on delete cascade,
      url text not null,
      events text[] not null,
      description text,
      active boolean not null default true,
      disabled_reason text,
      secret text not null,
      previous_secret text,
      previous_secret_expires_at timestamptz,
      created_at timestamptz not null
    );`);
    this.addSql('create index webhook_endpoint_owner_created_idx on webhook_endpoint (owner_id, created_at, id);');
    this.addSql(`create table webhook_event (
      id text primary key,
      owner_id text not null references app_user (id) on delete cascade,
      type text not null,
      body text not null,
      created_at timestamptz not null
    );`);
    this.addSql(`create table webhook_delivery (
      id text primary key,
      endpoint_id text not null references webhook_endpoint (id) on delete cascade,
      event_id text not null references webhook_event (id) on delete cascade,
      status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
      attempts int not null default 0,
      last_status_code int,
      last_error text,
      last_response_body text,
      next_attempt_at timestamptz,
      created_at timestamptz not null,
      delivered_at timestamptz
    );`);
    this.addSql('create index webhook_delivery_endpoint_created_idx on webhook_delivery (endpoint_id, created_at desc, id desc);');
    this.addSql("create index webhook_delivery_due_idx on webhook_delivery (next_attempt_at) where status = 'pending';");
  }

  override async down(): Promise<void> {
    this.addSql('drop table webhook_delivery;');
    this.addSql('drop table webhook_event;');
    this.addSql('drop table webhook_endpoint;');
  }
}
