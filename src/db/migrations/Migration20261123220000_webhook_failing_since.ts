import { Migration } from '@mikro-orm/migrations';

/**
 * When an endpoint's deliveries started failing without a success since: the worker disables an endpoint that
 * has been failing for 5 days (as Svix does) and clears this on any success or when the owner re-enables it.
 */
export class Migration20261123220000_webhook_failing_since extends Migration {
  override name = 'Migration20261123220000_webhook_failing_since';

  override async up(): Promise<void> {
    this.addSql('alter table webhook_endpoint add column failing_since timestamptz;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table webhook_endpoint drop column failing_since;');
  }
}
