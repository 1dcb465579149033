import { useState } from 'react';
import { api, errorMessage } from '../../api.ts';
import { ConfirmAction, ErrorNotice } from '../../components/ui.tsx';
import { formatDate } from '../../time.ts';
import { ListView } from '../ListView.tsx';
import { useLoadedList } from '../loaded.ts';
import { useSession } from '../session.ts';
import { type Secret, SettingsSection, useSettingsSection } from './SettingsSection.tsx';
import type { WebhookItem } from './types.ts';
import { WebhookDeliveries } from './WebhookDeliveries.tsx';
import { WebhookForm } from './WebhookForm.tsx';

function signingSecret(title: string, secret: string): Secret {
  return {
    title,
    warning: 'Copy this signing secret now: your receiver verifies signatures with it. It will not be shown again.',
    fields: [{ label: 'Signing secret', value: secret }],
  };
}

/** Webhook endpoints: create (secret shown once), edit, enable/disable, test, rotate, delete, and the delivery log. */
export function WebhooksSection({ canCreate }: { canCreate: boolean }) {
  const section = useSettingsSection();
  const endpoints = useLoadedList(async () => (canCreate ? (await api.webhooks.list.query()).data : []), [canCreate]);

  return (
    <SettingsSection
      name="webhooks"
      title="Webhooks"
      intro={
        <>
          We POST an event to your endpoint when a booking or a lead changes, signed per Standard Webhooks
          (<code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>). Failed deliveries
          are retried for about a day and a half.
        </>
      }
      state={section}
      create={{
        label: 'Add endpoint',
        disabled: !canCreate,
        form: (
          <WebhookForm
            onCancel={section.close}
            onSaved={(created, secret) => {
              endpoints.put(created);
              section.reveal(signingSecret('Endpoint added', secret ?? ''));
            }}
          />
        ),
      }}
    >
      {canCreate ? (
        <ListView
          list={endpoints}
          what="Your webhook endpoints"
          loading="Loading webhook endpoints…"
          empty={<p className="empty">You have no webhook endpoints yet.</p>}
          inCard
        >
          {(items) => (
            <ul className="item-list" aria-label="Your webhook endpoints">
              {items.map((endpoint) => (
                <EndpointItem
                  key={endpoint.id}
                  endpoint={endpoint}
                  onChanged={endpoints.put}
                  onDeleted={() => endpoints.remove(endpoint.id)}
                  onSecret={(secret) => section.reveal(signingSecret('Secret rotated', secret))}
                />
              ))}
            </ul>
          )}
        </ListView>
      ) : (
        <p className="empty">Webhooks are part of the Team plan.</p>
      )}
    </SettingsSection>
  );
}

function EndpointItem(props: {
  endpoint: WebhookItem;
  onChanged: (endpoint: WebhookItem) => void;
  onDeleted: () => void;
  onSecret: (secret: string) => void;
}) {
  const { endpoint } = props;
  const { user, onSessionLost } = useSession();
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
        <dd>{formatDate(endpoint.createdAt, user.timezone)}</dd>
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
          disabled={!endpoint.active}
          title={endpoint.active ? undefined : 'Enable the endpoint to send it a test event'}
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
      {showLog && <WebhookDeliveries webhookId={endpoint.id} refreshKey={logVersion} />}
    </li>
  );
}

function StatusBadge({ endpoint }: { endpoint: WebhookItem }) {
  if (endpoint.active) return <span className="badge badge-accent">Active</span>;
  return <span className="badge badge-danger">{endpoint.disabledReason ? 'Disabled by the service' : 'Disabled'}</span>;
}
