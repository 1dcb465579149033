import { type FormEvent, useCallback, useEffect, useId, useState } from 'react';
import { api, errorMessage } from '../../api.ts';
import { TextField } from '../../components/fields.tsx';
import { ConfirmAction, CopyInline, ErrorNotice, formatDate, LoadFailed, SecretReveal, Spinner, useFocusAfterRender } from '../../components/ui.tsx';
import type { OAuthAppItem, OnSessionLost } from './types.ts';

type Revealed = { title: string; clientId: string; clientSecret: string };

export function OAuthAppsSection({ canCreate, onSessionLost }: { canCreate: boolean; onSessionLost: OnSessionLost }) {
  const [apps, setApps] = useState<OAuthAppItem[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [editingId, setEditingId] = useState<string | null>(null);
  const [newButtonRef, focusNewButton] = useFocusAfterRender<HTMLButtonElement>();
  const [revealed, setRevealed] = useState<Revealed | null>(null);

  const load = useCallback(async () => {
    try {
      setApps(await api.developerSettings.apps.list.query());
      setLoadError(null);
    } catch (error) {
      onSessionLost(error);
      setLoadError(errorMessage(error));
    }
  }, [onSessionLost]);

  useEffect(() => {
    void load();
  }, [load]);

  const replace = (app: OAuthAppItem) => setApps((current) => (current ?? []).map((a) => (a.id === app.id ? app : a)));

  return (
    <section className="card" aria-labelledby="apps-title">
      <div className="card-header">
        <div>
          <h2 id="apps-title">OAuth apps</h2>
          <p>
            Apps you build that other people sign in to with their scheduling account. Confidential apps run on a server
            and get a client secret; public apps (single-page, mobile, command-line) use PKCE instead.
          </p>
        </div>
        {!creating && !revealed && (
          <button
            type="button"
            ref={newButtonRef}
            className="btn btn-primary"
            disabled={!canCreate}
            onClick={() => {
              setActionError(null);
              setCreating(true);
            }}
          >
            New OAuth app
          </button>
        )}
      </div>

      {(creating || revealed) && (
        <div className="card-body">
          {revealed ? (
            <SecretReveal
              title={revealed.title}
              warning="Copy the client secret now and store it securely. It will not be shown again; if you lose it, rotate it to get a new one."
              fields={[
                { label: 'Client ID', value: revealed.clientId },
                { label: 'Client secret', value: revealed.clientSecret },
              ]}
              onDone={() => {
                setRevealed(null);
                focusNewButton();
              }}
            />
          ) : (
            <AppForm
              mode="create"
              onCancel={() => {
                setCreating(false);
                focusNewButton();
              }}
              onSessionLost={onSessionLost}
              submit={async (values) => {
                const created = await api.developerSettings.apps.create.mutate(values);
                setCreating(false);
                setApps((current) => [created.app, ...(current ?? [])]);
                if (created.clientSecret) {
                  setRevealed({
                    title: `App “${created.app.name}” created`,
                    clientId: created.app.clientId,
                    clientSecret: created.clientSecret,
                  });
                }
              }}
            />
          )}
        </div>
      )}

      {actionError && (
        <div className="card-body">
          <ErrorNotice>{actionError}</ErrorNotice>
        </div>
      )}
      {loadError && (
        <div className="card-body">
          <LoadFailed what="Your apps" reason={loadError} onRetry={() => void load()} />
        </div>
      )}
      {!apps && !loadError && <Spinner label="Loading apps…" />}
      {apps && apps.length === 0 && <p className="empty">You have not registered any OAuth apps.</p>}
      {apps && apps.length > 0 && (
        <ul className="item-list" aria-label="Your OAuth apps">
          {apps.map((app) => (
            <li className="item" key={app.id} data-testid="oauth-app">
              <div className="item-head">
                <div className="item-title">
                  <h3>{app.name}</h3>
                  <span className="badge badge-neutral">{app.type === 'confidential' ? 'Confidential' : 'Public'}</span>
                </div>
                {editingId !== app.id && (
                  <div className="btn-row">
                    <button
                      type="button"
                      className="btn btn-small"
                      aria-label={`Edit app ${app.name}`}
                      onClick={() => {
                        setActionError(null);
                        setEditingId(app.id);
                      }}
                    >
                      Edit
                    </button>
                    {app.type === 'confidential' && (
                      <ConfirmAction
                        label="Rotate secret"
                        confirmLabel="Rotate"
                        question="The current secret stops working now."
                        accessibleName={`Rotate the client secret of ${app.name}`}
                        onConfirm={async () => {
                          setActionError(null);
                          try {
                            const rotated = await api.developerSettings.apps.rotateSecret.mutate({ id: app.id });
                            if (rotated.clientSecret) {
                              setRevealed({
                                title: `New client secret for “${app.name}”`,
                                clientId: rotated.app.clientId,
                                clientSecret: rotated.clientSecret,
                              });
                            }
                          } catch (error) {
                            onSessionLost(error);
                            setActionError(`The secret could not be rotated. ${errorMessage(error)}`);
                          }
                        }}
                      />
                    )}
                    <ConfirmAction
                      label="Delete"
                      confirmLabel="Delete app"
                      question="Delete it and sign out all its users?"
                      accessibleName={`Delete app ${app.name}`}
                      onConfirm={async () => {
                        setActionError(null);
                        try {
                          await api.developerSettings.apps.delete.mutate({ id: app.id });
                          setApps((current) => (current ?? []).filter((a) => a.id !== app.id));
                        } catch (error) {
                          onSessionLost(error);
                          setActionError(`The app could not be deleted. ${errorMessage(error)}`);
                        }
                      }}
                    />
                  </div>
                )}
              </div>
              {editingId === app.id ? (
                <AppForm
                  mode="edit"
                  initial={app}
                  onCancel={() => setEditingId(null)}
                  onSessionLost={onSessionLost}
                  submit={async (values) => {
                    const updated = await api.developerSettings.apps.update.mutate({
                      id: app.id,
                      name: values.name,
                      redirectUris: values.redirectUris,
                    });
                    replace(updated);
                    setEditingId(null);
                  }}
                />
              ) : (
                <dl className="meta">
                    <dt>Client ID</dt>
                    <dd>
                      <CopyInline label={`the client ID of ${app.name}`} value={app.clientId} />
                    </dd>
                    <dt>Redirect URIs</dt>
                    <dd>
                      {app.redirectUris.map((uri) => (
                        <div key={uri}>
                          <code>{uri}</code>
                        </div>
                      ))}
                    </dd>
                    <dt>Created</dt>
                    <dd>{formatDate(app.createdAt)}</dd>
                  </dl>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

interface AppValues {
  name: string;
  redirectUris: string[];
  type: 'confidential' | 'public';
}

function AppForm(props: {
  mode: 'create' | 'edit';
  initial?: OAuthAppItem;
  onCancel: () => void;
  onSessionLost: OnSessionLost;
  submit: (values: AppValues) => Promise<void>;
}) {
  const [name, setName] = useState(props.initial?.name ?? '');
  const [uris, setUris] = useState(props.initial?.redirectUris.join('\n') ?? '');
  const [type, setType] = useState<AppValues['type']>(props.initial?.type ?? 'confidential');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const titleId = useId();

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const redirectUris = uris
      .split(/\s+/)
      .map((uri) => uri.trim())
      .filter(Boolean);
    if (!name.trim()) return setError('Give the app a name; people see it when they authorize it.');
    if (redirectUris.length === 0) return setError('Add at least one redirect URI.');
    setBusy(true);
    setError(null);
    try {
      await props.submit({ name: name.trim(), redirectUris, type });
    } catch (caught) {
      props.onSessionLost(caught);
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="form form-panel" onSubmit={onSubmit} noValidate aria-labelledby={titleId}>
      <h3 id={titleId}>{props.mode === 'create' ? 'New OAuth app' : `Edit ${props.initial?.name ?? 'app'}`}</h3>
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <TextField
        label="App name"
        value={name}
        maxLength={100}
        required
        // biome-ignore lint/a11y/noAutofocus: the form opens on request; its first field is where the user goes next
        autoFocus
        placeholder="e.g. Acme CRM sync"
        onChange={(event) => setName(event.target.value)}
      />
      <TextField
        multiline
        label="Redirect URIs"
        hint="One per line. They must use https, except http://localhost or http://127.0.0.1 while developing."
        className="textarea mono"
        value={uris}
        rows={3}
        required
        spellCheck={false}
        placeholder="https://example.com/oauth/callback"
        onChange={(event) => setUris(event.target.value)}
      />
      {props.mode === 'create' && (
        <fieldset className="field">
          <legend className="label">Client type</legend>
          <div className="checkbox-grid">
            <label className="choice">
              <input
                type="radio"
                name="client-type"
                value="confidential"
                checked={type === 'confidential'}
                onChange={() => setType('confidential')}
              />
              <span className="choice-text">
                <strong>Confidential</strong>
                <span>Runs on a server that can keep a client secret.</span>
              </span>
            </label>
            <label className="choice">
              <input
                type="radio"
                name="client-type"
                value="public"
                checked={type === 'public'}
                onChange={() => setType('public')}
              />
              <span className="choice-text">
                <strong>Public</strong>
                <span>Browser, mobile or command-line app: no secret, PKCE only.</span>
              </span>
            </label>
          </div>
        </fieldset>
      )}
      <div className="btn-row">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : props.mode === 'create' ? 'Create app' : 'Save changes'}
        </button>
        <button type="button" className="btn" onClick={props.onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
