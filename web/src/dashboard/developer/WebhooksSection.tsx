import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../../api.ts';
import { ConfirmAction, ErrorNotice, formatDate, LoadFailed, SecretReveal, Spinner, useFocusAfterRender } from '../../components/ui.tsx';
import type { OnSessionLost, WebhookItem } from './types.ts';
import { WebhookDeliveries } from './WebhookDeliveries.tsx';
import { WebhookForm } from './WebhookForm.tsx';

type Panel = { kind: 'none' } | { kind: 'create' } | { kind: 'secret'; title: string; secret: string };

/** Webhook endpoints: create (secret shown once), edit, enable/disable, test, rotate, delete, and the delivery log. */
export function WebhooksSection({ canCreate, onSessionLost }: { canCreate: boolean; onSessionLost: OnSessionLost }) {
  const [endpoints, setEndpoints] = useState<WebhookItem[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [panel, setPanel] = useState<Panel>({ kind: 'none' });
  const [newButtonRef, focusNewButton] = useFocusAfterRender<HTMLButtonElement>();

  const load = useCallback(async () => {
    try {
      setEndpoints((await api.webhooks.list.query()).data);
      setLoadError(null);
    } catch (error) {
      onSessionLost(error);
      setLoadError(errorMessage(error));
    }
  }, [onSessionLost]);

  useEffect(() => {
    if (canCreate) void load();
  }, [load, canCreate]);

  const replace = (changed: WebhookItem) =>
    setEndpoints((current) => (current ?? []).map((endpoint) => (endpoint.id === changed.id ? changed : endpoint)));

  return (
    <section className="card" aria-labelledby="webhooks-title">
      <div className="card-header">
        <div>
          <h2 id="webhooks-title">Webhooks</h2>
          <p>
            We POST an event to your endpoint when a booking or a lead changes, signed per Standard Webhooks
            (<code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>). Failed deliveries
            are retried for about a day and a half.
          </p>
        </div>
        {panel.kind === 'none' && (
          <button type="button" ref={newButtonRef} className="btn btn-primary" disabled={!canCreate} onClick={() => setPanel({ kind: 'create' })}>
            Add endpoint
          </button>
        )}
      </div>

      {panel.kind !== 'none' && (
        <div className="card-body">
          {panel.kind === 'secret' ? (
            <SecretReveal
              title={panel.title}
              warning="Copy this signing secret now: your receiver verifies signatures with it. It will not be shown again."
              fields={[{ label: 'Signing secret', value: panel.secret }]}
              onDone={() => {
                setPanel({ kind: 'none' });
                focusNewButton();
              }}
            />
          ) : (
            <WebhookForm
              onCancel={() => {
                setPanel({ kind: 'none' });
                focusNewButton();
              }}
              onSaved={(created, secret) => {
                setEndpoints((current) => [...(current ?? []), created]);
                setPanel({ kind: 'secret', title: 'Endpoint added', secret: secret ?? '' });
              }}
              onSessionLost={onSessionLost}
            />
          )}
        </div>
      )}

      {!canCreate && <p className="empty">Webhooks are part of the Team plan.</p>}
      {loadError && (
        <div className="card-body">
          <LoadFailed what="Your webhook endpoints" reason={loadError} onRetry={() => void load()} />
        </div>
      )}
      {canCreate && !endpoints && !loadError && <Spinner label="Loading webhook endpoints…" />}
      {endpoints && endpoints.length === 0 && <p className="empty">You have no webhook endpoints yet.</p>}
      {endpoints && endpoints.length > 0 && (
        <ul className="item-list" aria-label="Your webhook endpoints">
          {endpoints.map((endpoint) => (
            <EndpointItem
              key={endpoint.id}
              endpoint={endpoint}
              onChanged={replace}
              onDeleted={() => setEndpoints((current) => (current ?? []).filter((other) => other.id !== endpoint.id))}
              onSecret={(secret) => setPanel({ kind: 'secret', title: 'Secret rotated', secret })}
              onSessionLost={onSessionLost}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function EndpointItem(props: {
  endpoint: WebhookItem;
  onChanged: (endpoint: WebhookItem) => void;
  onDeleted: () => void;
  onSecret: (secret: string) => void;
  onSessionLost: OnSessionLost;
}) {
  const { endpoint, onSessionLost } = props;
  const [editing, setEditing] = useState(false);
  const [showLog, setShowLog] = useState(false);
  const [logVersion, setLogVersion] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  /** Runs one action, reporting its failure in this item. */
  const act = async (what: string, action: () => Promise<void>) => {
    setError(null);
    setNotice(null);
    try {
      await action();
    } catch (caught) {
      onSessionLost(caught);
      setError(`${what} failed. ${errorMessage(caught)}`);
    }
  };

  if (editing) {
    return (
      <li className="item">
        <WebhookForm
          editing={endpoint}
          onCancel={() => setEditing(false)}
          onSaved={(saved) => {
            props.onChanged(saved);
            setEditing(false);
          }}
          onSessionLost={onSessionLost}
        />
      </li>
    );
  }
  return (
    <li className="item" data-testid="webhook-endpoint">
      <div className="item-title">
        <h3 className="webhook-url mono">{endpoint.url}</h3>
        <StatusBadge endpoint={endpoint} />
      </div>
      {endpoint.disabledReason && <div className="notice notice-warning">{endpoint.disabledReason}</div>}
      {error && <ErrorNotice>{error}</ErrorNotice>}
      {notice && (
        <div className="notice notice-info" role="status">
          {notice}
        </div>
      )}
      <dl className="meta">
        {endpoint.description && (
          <>
            <dt>Description</dt>
            <dd>{endpoint.description}</dd>
          </>
        )}
        <dt>Events</dt>
        <dd>
          <div className="chips">
            {endpoint.events.map((kind) => (
              <span className="chip" key={kind}>
                {kind}
              </span>
            ))}
          </div>
        </dd>
        <dt>Added</dt>
        <dd>{formatDate(endpoint.createdAt)}</dd>
      </dl>
      <div className="btn-row">
        <button type="button" className="btn btn-small" onClick={() => setEditing(true)}>
          Edit
        </button>
        <button
          type="button"
          className="btn btn-small"
          onClick={() =>
            void act(endpoint.active ? 'Disabling' : 'Enabling', async () => {
              props.onChanged(await api.webhooks.update.mutate({ id: endpoint.id, active: !endpoint.active }));
            })
          }
        >
          {endpoint.active ? 'Disable' : 'Enable'}
        </button>
        <button
          type="button"
          className="btn btn-small"
          onClick={() =>
            void act('Sending a test event', async () => {
              await api.webhooks.test.mutate({ id: endpoint.id });
              setNotice('A ping event is on its way. Its delivery appears in the log below.');
              setShowLog(true);
              setLogVersion((version) => version + 1);
            })
          }
        >
          Send test event
        </button>
        <button type="button" className="btn btn-small" aria-expanded={showLog} onClick={() => setShowLog((shown) => !shown)}>
          {showLog ? 'Hide deliveries' : 'Deliveries'}
        </button>
        <ConfirmAction
          label="Rotate secret"
          confirmLabel="Rotate"
          question="New secret? The old one keeps signing for 24 hours."
          accessibleName={`Rotate the secret of ${endpoint.url}`}
          onConfirm={() =>
            act('Rotating the secret', async () => props.onSecret((await api.webhooks.rotateSecret.mutate({ id: endpoint.id })).secret))
          }
        />
        <ConfirmAction
          label="Delete"
          confirmLabel="Delete"
          question="Delete this endpoint and its pending deliveries?"
          accessibleName={`Delete the endpoint ${endpoint.url}`}
          onConfirm={() =>
            act('Deleting', async () => {
              await api.webhooks.delete.mutate({ id: endpoint.id });
              props.onDeleted();
            })
          }
        />
      </div>
      {showLog && <WebhookDeliveries webhookId={endpoint.id} refreshKey={logVersion} onSessionLost={onSessionLost} />}
    </li>
  );
}

function StatusBadge({ endpoint }: { endpoint: WebhookItem }) {
  if (endpoint.active) return <span className="badge badge-accent">Active</span>;
  return <span className="badge badge-danger">{endpoint.disabledReason ? 'Disabled by the service' : 'Disabled'}</span>;
}
