import { type FormEvent, useId, useState } from 'react';
import { api, errorMessage } from '../../api.ts';
import { SelectField, TextField } from '../../components/fields.tsx';
import { ConfirmAction, ErrorNotice, useChoiceSet } from '../../components/ui.tsx';
import { formatDate } from '../../time.ts';
import { ListView } from '../ListView.tsx';
import { useLoadedList } from '../loaded.ts';
import { useSession } from '../session.ts';
import { SettingsSection, useSettingsSection } from './SettingsSection.tsx';
import type { ScopeItem, TokenItem } from './types.ts';

const EXPIRY_CHOICES = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '1 year' },
  { value: 'never', label: 'No expiration' },
] as const;

const DAY_MS = 24 * 60 * 60 * 1000;

export function TokensSection({ canCreate }: { canCreate: boolean }) {
  const section = useSettingsSection();
  const zone = useSession().user.timezone;
  const [scopes, setScopes] = useState<ScopeItem[]>([]);
  const tokens = useLoadedList(async () => {
    const [list, catalog] = await Promise.all([api.developerSettings.tokens.list.query(), api.developerSettings.scopes.query()]);
    setScopes(catalog);
    return list;
  }, []);

  return (
    <SettingsSection
      name="tokens"
      title="Personal access tokens"
      intro={
        <>
          Tokens act as you on the REST API (<code>Authorization: Bearer pat_…</code>). Give each one only the scopes it
          needs, and revoke it when it is no longer used.
        </>
      }
      state={section}
      create={{
        label: 'Generate new token',
        disabled: !canCreate,
        form: (
          <CreateTokenForm
            scopes={scopes}
            onCancel={section.close}
            onCreated={(created, secret) => {
              tokens.prepend(created);
              section.reveal({
                title: `Token “${created.name}” created`,
                warning: 'Copy this token now and keep it somewhere safe. For your security it will not be shown again.',
                fields: [{ label: 'Your new personal access token', value: secret }],
              });
            }}
          />
        ),
      }}
    >
      <ListView
        list={tokens}
        what="Your tokens"
        loading="Loading tokens…"
        empty={<p className="empty">You have no personal access tokens yet.</p>}
        inCard
      >
        {(items) => (
          <div className="table-wrap">
            <table data-testid="tokens-table">
              <caption className="visually-hidden">Your personal access tokens</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Token</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((token) => (
                  <tr key={token.id}>
                    <td data-label="Name">
                      <strong>{token.name}</strong>
                    </td>
                    <td data-label="Token">
                      <code>{token.prefix}…</code>
                    </td>
                    <td data-label="Scopes">
                      <div className="chips">
                        {token.scopes.length === scopes.length && scopes.length > 0 ? (
                          <span className="chip">All scopes</span>
                        ) : (
                          token.scopes.map((scope) => (
                            <span className="chip" key={scope}>
                              {scope}
                            </span>
                          ))
                        )}
                      </div>
                    </td>
                    <td data-label="Created">{formatDate(token.createdAt, zone)}</td>
                    <td data-label="Last used" className={token.lastUsedAt ? undefined : 'muted'}>
                      {token.lastUsedAt ? formatDate(token.lastUsedAt, zone) : 'Never'}
                    </td>
                    <td data-label="Expires">
                      {token.expired ? (
                        <span className="badge badge-danger">Expired</span>
                      ) : token.expiresAt ? (
                        formatDate(token.expiresAt, zone)
                      ) : (
                        <span className="muted">Never</span>
                      )}
                    </td>
                    <td className="actions">
                      <ConfirmAction
                        label="Revoke"
                        confirmLabel="Revoke"
                        question="Revoke this token?"
                        accessibleName={`Revoke token ${token.name}`}
                        onConfirm={() =>
                          section.act('The token could not be revoked.', async () => {
                            await api.developerSettings.tokens.revoke.mutate({ id: token.id });
                            tokens.remove(token.id);
                          })
                        }
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListView>
    </SettingsSection>
  );
}

function CreateTokenForm(props: {
  scopes: ScopeItem[];
  onCancel: () => void;
  onCreated: (token: TokenItem, secret: string) => void;
}) {
  const { user, onSessionLost } = useSession();
  const [name, setName] = useState('');
  const [expiry, setExpiry] = useState<string>('30');
  const [selected, toggle, setSelected] = useChoiceSet<string>(['read:profile']);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const scopesHintId = useId();

  const expiresAt = expiry === 'never' ? null : new Date(Date.now() + Number(expiry) * DAY_MS);
  const allSelected = props.scopes.length > 0 && props.scopes.every((s) => selected.has(s.scope));

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!name.trim()) {
      setError('Give the token a name, so you can recognise it later.');
      return;
    }
    if (selected.size === 0) {
      setError('Pick at least one scope.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const created = await api.developerSettings.tokens.create.mutate({
        name: name.trim(),
        scopes: props.scopes.filter((s) => selected.has(s.scope)).map((s) => s.scope),
        expiresAt: expiresAt?.toISOString() ?? null,
      });
      props.onCreated(created.token, created.secret);
    } catch (caught) {
      onSessionLost(caught);
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="form form-panel" onSubmit={submit} noValidate aria-labelledby="new-token-title">
      <h3 id="new-token-title">New personal access token</h3>
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <TextField
        label="Token name"
        value={name}
        maxLength={100}
        required
        // biome-ignore lint/a11y/noAutofocus: the form opens on request; its first field is where the user goes next
        autoFocus
        placeholder="e.g. Zapier integration"
        onChange={(event) => setName(event.target.value)}
      />
      <SelectField
        label="Expiration"
        value={expiry}
        hint={
          expiresAt
            ? `The token will stop working on ${formatDate(expiresAt.toISOString(), user.timezone, 'full')}.`
            : 'The token works until you revoke it.'
        }
        onChange={(event) => setExpiry(event.target.value)}
      >
        {EXPIRY_CHOICES.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </SelectField>
      <fieldset className="field" aria-describedby={scopesHintId}>
        <legend className="label">Scopes</legend>
        <span className="hint" id={scopesHintId}>
          What the token may do on your behalf.{' '}
          <button
            type="button"
            className="btn btn-link"
            onClick={() => setSelected(allSelected ? [] : props.scopes.map((s) => s.scope))}
          >
            {allSelected ? 'Clear all' : 'Select all'}
          </button>
        </span>
        <div className="checkbox-grid">
          {props.scopes.map((scope) => (
            <label className="choice" key={scope.scope}>
              <input
                type="checkbox"
                name="scopes"
                value={scope.scope}
                checked={selected.has(scope.scope)}
                onChange={(event) => toggle(scope.scope, event.target.checked)}
              />
              <span className="choice-text">
                <strong className="mono">{scope.scope}</strong>
                <span>{scope.description}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      <div className="btn-row">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Generating…' : 'Generate token'}
        </button>
        <button type="button" className="btn" onClick={props.onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
