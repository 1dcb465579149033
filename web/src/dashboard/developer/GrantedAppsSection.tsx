import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../../api.ts';
import { ConfirmAction, ErrorNotice, formatDate, LoadFailed, Spinner } from '../../components/ui.tsx';
import type { GrantedAppItem, OnSessionLost } from './types.ts';

/** Apps the user has authorized through the consent screen; revoking one ends all of its tokens. */
export function GrantedAppsSection({ onSessionLost }: { onSessionLost: OnSessionLost }) {
  const [grants, setGrants] = useState<GrantedAppItem[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setGrants(await api.developerSettings.grants.list.query());
      setLoadError(null);
    } catch (error) {
      onSessionLost(error);
      setLoadError(errorMessage(error));
    }
  }, [onSessionLost]);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section className="card" aria-labelledby="grants-title">
      <div className="card-header">
        <div>
          <h2 id="grants-title">Authorized apps</h2>
          <p>Apps you have allowed to use your account. Revoking access signs the app out immediately.</p>
        </div>
      </div>
      {actionError && (
        <div className="card-body">
          <ErrorNotice>{actionError}</ErrorNotice>
        </div>
      )}
      {loadError && (
        <div className="card-body">
          <LoadFailed what="Authorized apps" reason={loadError} onRetry={() => void load()} />
        </div>
      )}
      {!grants && !loadError && <Spinner label="Loading authorized apps…" />}
      {grants && grants.length === 0 && <p className="empty">You have not authorized any apps.</p>}
      {grants && grants.length > 0 && (
        <ul className="item-list" aria-label="Apps with access to your account">
          {grants.map((grant) => (
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
                  onConfirm={async () => {
                    setActionError(null);
                    try {
                      await api.developerSettings.grants.revoke.mutate({ id: grant.id });
                      setGrants((current) => (current ?? []).filter((g) => g.id !== grant.id));
                    } catch (error) {
                      onSessionLost(error);
                      setActionError(`Access could not be revoked. ${errorMessage(error)}`);
                    }
                  }}
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
                <dd>{formatDate(grant.grantedAt)}</dd>
                <dt>Last used</dt>
                <dd>{grant.lastUsedAt ? formatDate(grant.lastUsedAt) : 'Never'}</dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
