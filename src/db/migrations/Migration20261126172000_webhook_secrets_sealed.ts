import { Migration } from '@mikro-orm/migrations';
import { openWithRoot, SEALING_ROOT_SECRET, sealWithRoot } from '../../lib/sealed-secrets.ts';
import { readOrCreateServerSecret } from '../../lib/server-secret.ts';

interface EndpointSecrets {
  id: string;
  secret: string;
  previous_secret: string | null;
}

/**
 * Webhook signing secrets are stored sealed (AES-256-GCM under a key derived from a server secret, see
 * src/lib/sealed-secrets.ts) instead of in clear. The existing rows are sealed here, in the migration's
 * transaction, with the server secret read (or created) in that same transaction; a check then refuses any clear
 * value written later. `down` opens them again.
 */
export class Migration20261126172000_webhook_secrets_sealed extends Migration {
  override name = 'Migration20261126172000_webhook_secrets_sealed';

  override async up(): Promise<void> {
    await this.convert((root, value) => sealWithRoot(root, 'webhook-signing-secret', value));
    this.addSql(`alter table webhook_endpoint add constraint webhook_endpoint_secrets_sealed
      check (secret ~ '^v[0-9]+\\.' and (previous_secret is null or previous_secret ~ '^v[0-9]+\\.'));`);
  }

  override async down(): Promise<void> {
    // At once, not queued with addSql: the clear values written next would break it.
    await this.execute('alter table webhook_endpoint drop constraint webhook_endpoint_secrets_sealed');
    await this.convert((root, value) => openWithRoot(root, 'webhook-signing-secret', value));
  }

  /** Rewrites every endpoint's secret and previous secret with `change`. */
  private async convert(change: (root: Uint8Array, value: string) => string): Promise<void> {
    const rows = (await this.execute('select id, secret, previous_secret from webhook_endpoint')) as unknown as EndpointSecrets[];
    if (rows.length === 0) return;
    const root = await readOrCreateServerSecret((sql, params) => this.execute(sql, params), SEALING_ROOT_SECRET);
    for (const row of rows) {
      await this.execute('update webhook_endpoint set secret = ?, previous_secret = ? where id = ?', [
        change(root, row.secret),
        row.previous_secret === null ? null : change(root, row.previous_secret),
        row.id,
      ]);
    }
  }
}
