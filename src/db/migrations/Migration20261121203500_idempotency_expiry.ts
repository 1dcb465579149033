import { Migration } from '@mikro-orm/migrations';

/** Idempotency keys expire after 24 hours; this index lets the pruning find the old ones cheaply. */
export class Migration20261121203500_idempotency_expiry extends Migration {
  override name = 'Migration20261121203500_idempotency_expiry';

  override async up(): Promise<void> {
    this.addSql('create index idempotency_key_created_idx on idempotency_key (created_at);');
  }
}
