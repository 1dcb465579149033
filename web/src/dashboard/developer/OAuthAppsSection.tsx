import { type FormEvent, useId, useState } from 'react';
import { api, errorMessage } from '../../api.ts';
import { TextField } from '../../components/fields.tsx';
import { ConfirmAction, CopyInline, ErrorNotice } from '../../components/ui.tsx';
import { formatDate } from '../../time.ts';
import { ListView } from '../ListView.tsx';
import { type LoadedList, useLoadedList } from '../loaded.ts';
import { useSession } from '../session.ts';
import { type Secret, SettingsSection, type SettingsSectionState, useSettingsSection } from './SettingsSection.tsx';
import type { OAuthAppItem } from './types.ts';

/** An app's client ID and its new client secret, shown once. */
function clientSecret(title: string, clientId: string, secret: string): Secret {
  return {
    title,
    warning: 'Copy the client secret now and store it securely. It will not be shown again; if you lose it, rotate it to get a new one.',
    fields: [
      { label: 'Client ID', value: clientId },
      { label: 'Client secret', value: secret },
    ],
  };
}

export function OAuthAppsSection({ canCreate }: { canCreate: boolean }) {
  const section = useSettingsSection();
  const apps = useLoadedList(() => api.developerSettings.apps.list.query(), []);
  // One app is edited at a time.
  const [editingId, setEditingId] = useState<string | null>(null);

  return (
    <SettingsSection
      name="apps"
      title="OAuth apps"
      intro={
        <>
          Apps you build that other people sign in to with their scheduling account. Confidential apps run on a server
          and get a client secret; public apps (single-page, mobile, command-line) use PKCE instead.
        </>
      }
      state={section}
      create={{
        label: 'New OAuth app',
        disabled: !canCreate,
        form: (
          <AppForm
            mode="create"
            onCancel={section.close}
            submit={async (values) => {
              const created = await api.developerSettings.apps.create.mutate(values);
              apps.prepend(created.app);
              if (created.clientSecret) {
                section.reveal(clientSecret(`App “${created.app.name}” created`, created.app.clientId, created.clientSecret));
              } else {
                section.close();
              }
            }}
          />
        ),
      }}
    >
      <ListView list={apps} what="Your apps" loading="Loading apps…" empty={<p className="empty">You have not registered any OAuth apps.</p>} inCard>
        {(items) => (
          <ul className="item-list" aria-label="Your OAuth apps">
            {items.map((app) => (
              <AppItem
                key={app.id}
                app={app}
                apps={apps}
                section={section}
                editing={editingId === app.id}
                onEditing={(editing) => setEditingId(editing ? app.id : null)}
              />
            ))}
          </ul>
        )}
      </ListView>
    </SettingsSection>
  );
}

function AppItem(props: {
  app: OAuthAppItem;
  apps: LoadedList<OAuthAppItem>;
  section: SettingsSectionState;
  editing: boolean;
  onEditing: (editing: boolean) => void;
}) {
  const { app, apps, section, editing } = props;
  const zone = useSession().user.timezone;
  return (
    <li className="item" data-testid="oauth-app">
      <div className="item-head">
        <div className="item-title">
          <h3>{app.name}</h3>
          <span className="badge badge-neutral">{app.type === 'confidential' ? 'Confidential' : 'Public'}</span>
        </div>
        {!editing && (
          <div className="btn-row">
            <button type="button" className="btn btn-small" aria-label={`Edit app ${app.name}`} onClick={() => props.onEditing(true)}>
              Edit
            </button>
            {app.type === 'confidential' && (
              <ConfirmAction
                label="Rotate secret"
                confirmLabel="Rotate"
                question="The current secret stops working now."
                accessibleName={`Rotate the client secret of ${app.name}`}
                onConfirm={() =>
                  section.act('The secret could not be rotated.', async () => {
                    const rotated = await api.developerSettings.apps.rotateSecret.mutate({ id: app.id });
                    if (rotated.clientSecret) {
                      section.reveal(clientSecret(`New client secret for “${app.name}”`, rotated.app.clientId, rotated.clientSecret));
                    }
                  })
                }
              />
            )}
            <ConfirmAction
              label="Delete"
              confirmLabel="Delete app"
              question="Delete it and sign out all its users?"
              accessibleName={`Delete app ${app.name}`}
              onConfirm={() =>
                section.act('The app could not be deleted.', async () => {
                  await api.developerSettings.apps.delete.mutate({ id: app.id });
                  apps.remove(app.id);
                })
              }
            />
          </div>
        )}
      </div>
      {editing ? (
        <AppForm
          mode="edit"
          initial={app}
          onCancel={() => props.onEditing(false)}
          submit={async (values) => {
            apps.put(await api.developerSettings.apps.update.mutate({ id: app.id, name: values.name, redirectUris: values.redirectUris }));
            props.onEditing(false);
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
          <dd>{formatDate(app.createdAt, zone)}</dd>
        </dl>
      )}
    </li>
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
  submit: (values: AppValues) => Promise<void>;
}) {
  const { onSessionLost } = useSession();
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
      onSessionLost(caught);
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
