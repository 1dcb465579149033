import { Migration } from '@mikro-orm/migrations';

/**
 * A secret event type's private link key is a bearer secret: keep only its SHA-256 (hex, as for every other
 * token). Existing keys are hashed in place with PostgreSQL's built-in sha256() (11+, no extension), so
 * links already handed out keep working. `down` cannot bring the keys back: secret event types then have no
 * private link until it is regenerated.
 */
export class Migration20261123191000_private_link_key_hash extends Migration {
  override name = 'Migration20261123191000_private_link_key_hash';

  override async up(): Promise<void> {
    this.addSql('alter table event_type add column private_link_key_hash text;');
    this.addSql(`update event_type set private_link_key_hash = encode(sha256(convert_to(private_link_token, 'UTF8')), 'hex')
                  where private_link_token is not null;`);
    this.addSql('alter table event_type drop column private_link_token;');
    this.addSql('create unique index event_type_private_link_key_hash_key on event_type (private_link_key_hash);');
  }

  override async down(): Promise<void> {
    this.addSql('alter table event_type add column private_link_token text unique;');
    this.addSql('alter table event_type drop column private_link_key_hash;');
  }
}
