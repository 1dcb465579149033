import { Migration } from '@mikro-orm/migrations';

/**
 * Every change that can refuse a bearer token (a PAT or OAuth token or grant revoked, expired early or deleted, a
 * plan changed, a user deleted) notifies `principal_changed` with the user's id, so each instance's principal cache
 * drops that user's entries. Triggers, so no writer can forget; NOTIFY is transactional, so it is heard exactly at
 * commit. Other columns (a PAT's last_used_at) notify nobody.
 */
export class Migration20261123224500_principal_change_notifications extends Migration {
  override name = 'Migration20261123224500_principal_change_notifications';

  override async up(): Promise<void> {
    this.addSql(`create function notify_principal_changed(user_id text) returns void language plpgsql as $$
      begin
        if user_id is not null then
          perform pg_notify('principal_changed', user_id);
        end if;
      end $$;`);
    this.addSql(`create function principal_changed_by_user_id() returns trigger language plpgsql as $$
      begin
        perform notify_principal_changed(coalesce(old.user_id, new.user_id));
        return null;
      end $$;`);
    this.addSql(`create function principal_changed_by_user() returns trigger language plpgsql as $$
      begin
        perform notify_principal_changed(coalesce(old.id, new.id));
        return null;
      end $$;`);
    this.addSql(`create function principal_changed_by_grant_id() returns trigger language plpgsql as $$
      begin
        perform notify_principal_changed((select user_id from oauth_grant where id = coalesce(old.grant_id, new.grant_id)));
        return null;
      end $$;`);
    this.addSql(`create trigger personal_access_token_principal_changed
      after update of revoked_at, expires_at, scopes, user_id or delete on personal_access_token
      for each row execute function principal_changed_by_user_id();`);
    this.addSql(`create trigger oauth_grant_principal_changed
      after update of revoked_at, scopes, user_id or delete on oauth_grant
      for each row execute function principal_changed_by_user_id();`);
    this.addSql(`create trigger oauth_access_token_principal_changed
      after update of revoked_at, expires_at, scopes, resource, grant_id or delete on oauth_access_token
      for each row execute function principal_changed_by_grant_id();`);
    this.addSql(`create trigger app_user_principal_changed
      after update of plan or delete on app_user
      for each row execute function principal_changed_by_user();`);
  }
}
