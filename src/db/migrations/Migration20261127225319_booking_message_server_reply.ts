import { Migration } from '@mikro-orm/migrations';

/**
 * What the SMTP server answered when it accepted a message (`250 2.0.0 Ok: queued as …`): the operator's handle to
 * find the message in the server's own log. A refusal's reply stays in `last_error`.
 */
export class Migration20261127225319_booking_message_server_reply extends Migration {
  override name = 'Migration20261127225319_booking_message_server_reply';

  override async up(): Promise<void> {
    this.addSql('alter table booking_message add column server_reply text;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table booking_message drop column server_reply;');
  }
}
