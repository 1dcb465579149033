import { api } from '../../api.ts';
import { ConfirmAction } from '../../components/ui.tsx';
import { formatDate } from '../../time.ts';
import { ListView } from '../ListView.tsx';
import { useLoadedList } from '../loaded.ts';
import { useSession } from '../session.ts';
import { SettingsSection, useSettingsSection } from './SettingsSection.tsx';

/** Apps the user has authorized through the consent screen; revoking one ends all of its tokens. */
export function GrantedAppsSection() {
  const section = useSettingsSection();
  const zone = useSession().user.timezone;
  const grants = useLoadedList(() => api.developerSettings.grants.list.query(), []);

  return (
    <SettingsSection
      name="grants"
      title="Authorized apps"
      intro="Apps you have allowed to use your account. Revoking access signs the app out immediately."
      state={section}
    >
      <ListView
        list={grants}
        what="Authorized apps"
        loading="Loading authorized apps…"
        empty={<p className="empty">You have not authorized any apps.</p>}
        inCard
      >
        {(items) => (
          <ul className="item-list" aria-label="Apps with access to your account">
            {items.map((grant) => (
              <li className="item" key={grant.id} data-testid="granted-app">
                <div className="item-head">
                  <div className="item-title">
                    <h3>{grant.app.name}</h3>
                    {!grant.app.verified && <span className="badge badge-warning">Unverified</span>}
                  </div>
                  <ConfirmAction
                    label="Revoke access"
                    confirmLabel="Revoke access"
                    question="Sign this app out of your account?"
                    accessibleName={`Revoke access of ${grant.app.name}`}
                    onConfirm={() =>
                      section.act('Access could not be revoked.', async () => {
                        await api.developerSettings.grants.revoke.mutate({ id: grant.id });
                        grants.remove(grant.id);
                      })
                    }
                  />
                </div>
                <dl className="meta">
                  <dt>Permissions</dt>
                  <dd>
                    <div className="chips">
                      {grant.scopes.map((scope) => (
                        <span className="chip" key={scope}>
                          {scope}
                        </span>
                      ))}
                    </div>
                  </dd>
                  <dt>Authorized</dt>
                  <dd>{formatDate(grant.grantedAt, zone)}</dd>
                  <dt>Last used</dt>
                  <dd>{grant.lastUsedAt ? formatDate(grant.lastUsedAt, zone) : 'Never'}</dd>
                </dl>
              </li>
            ))}
          </ul>
        )}
      </ListView>
    </SettingsSection>
  );
}
