import { Migration } from '@mikro-orm/migrations';

/**
 * Every booking-page slug each user has had, the current one included: the primary key makes a slug anyone has or
 * had impossible to take, so an old address always leads to its owner (the booking pages redirect it to the current
 * slug). A trigger claims the slug of every inserted user and every slug change, so no path that writes `app_user`
 * can skip the claim; a slug claimed by another user is a unique_violation of `user_slug_pkey`. Deleting the user
 * frees their slugs.
 */
export class Migration20261127050000_user_slugs extends Migration {
  override name = 'Migration20261127050000_user_slugs';

  override async up(): Promise<void> {
    this.addSql(`create table user_slug (
      slug text primary key,
      user_id text not null references app_user (id) on delete cascade,
      created_at timestamptz not null default now()
    );`);
    this.addSql('create index user_slug_user_idx on user_slug (user_id);');
    this.addSql('insert into user_slug (slug, user_id, created_at) select slug, id, created_at from app_user;');
    this.addSql(`create function claim_user_slug() returns trigger language plpgsql as $$
      begin
        insert into user_slug (slug, user_id) values (new.slug, new.id) on conflict (slug) do nothing;
        if not found and not exists (select 1 from user_slug where slug = new.slug and user_id = new.id) then
          raise exception 'the slug % belongs to another user', new.slug
            using errcode = 'unique_violation', constraint = 'user_slug_pkey';
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger app_user_slug_claimed
      after insert or update of slug on app_user
      for each row execute function claim_user_slug();`);
  }
}
