import { useState } from 'react';
import { api, errorMessage } from '../../api.ts';
import { ErrorNotice } from '../../components/ui.tsx';
import { formatDateTime } from '../../time.ts';
import { ListView } from '../ListView.tsx';
import { useLoadedList } from '../loaded.ts';
import { useSession } from '../session.ts';
import type { DeliveryItem } from './types.ts';

const STATUS_BADGE: Record<DeliveryItem['status'], string> = {
  pending: 'badge-warning',
  succeeded: 'badge-accent',
  failed: 'badge-danger',
};

/** One endpoint's delivery log, newest first, with a redeliver button per delivery; a new `refreshKey` reloads it. */
export function WebhookDeliveries({ webhookId, refreshKey }: { webhookId: string; refreshKey: number }) {
  const { user, onSessionLost } = useSession();
  const deliveries = useLoadedList(async () => (await api.webhooks.deliveries.query({ id: webhookId, limit: 20 })).data, [webhookId], refreshKey);
  const [actionError, setActionError] = useState<string | null>(null);

  async function redeliver(delivery: DeliveryItem) {
    setActionError(null);
    try {
      deliveries.prepend(await api.webhooks.redeliver.mutate({ id: webhookId, deliveryId: delivery.id }));
    } catch (error) {
      onSessionLost(error);
      setActionError(`The event could not be sent again. ${errorMessage(error)}`);
    }
  }

  return (
    <section className="deliveries" aria-label="Delivery log" data-testid="delivery-log">
      <div className="item-head">
        <h4>Recent deliveries</h4>
        <button type="button" className="btn btn-small" onClick={deliveries.reload}>
          Refresh
        </button>
      </div>
      {actionError && <ErrorNotice>{actionError}</ErrorNotice>}
      <ListView
        list={deliveries}
        what="The delivery log"
        loading="Loading deliveries…"
        empty={<p className="muted">No deliveries yet. Send a test event to see one here.</p>}
      >
        {(items) => (
          <ul className="delivery-list">
            {items.map((delivery) => (
              <li key={delivery.id} className="delivery" data-testid="delivery">
                <div className="item-title">
                  <strong className="mono">{delivery.eventType}</strong>
                  <span className={`badge ${STATUS_BADGE[delivery.status]}`}>{delivery.status}</span>
                </div>
                <dl className="meta">
                  <dt>Queued</dt>
                  <dd>{formatDateTime(delivery.createdAt, user.timezone)}</dd>
                  <dt>Attempts</dt>
                  <dd>{delivery.attempts}</dd>
                  <dt>Last answer</dt>
                  <dd>{delivery.lastStatusCode ?? delivery.lastError ?? '—'}</dd>
                  {delivery.status === 'pending' && delivery.nextAttemptAt && (
                    <>
                      <dt>Next attempt</dt>
                      <dd>{formatDateTime(delivery.nextAttemptAt, user.timezone)}</dd>
                    </>
                  )}
                  {delivery.deliveredAt && (
                    <>
                      <dt>Delivered</dt>
                      <dd>{formatDateTime(delivery.deliveredAt, user.timezone)}</dd>
                    </>
                  )}
                  <dt>Event id</dt>
                  <dd className="mono">{delivery.eventId}</dd>
                </dl>
                <details className="delivery-body">
                  <summary>Body sent</summary>
                  <pre className="mono" data-testid="delivery-body">{readableBody(delivery.body)}</pre>
                </details>
                {delivery.status !== 'pending' && (
                  <div>
                    <button
                      type="button"
                      className="btn btn-small"
                      aria-label={`Redeliver ${delivery.eventType} ${delivery.eventId}`}
                      onClick={() => void redeliver(delivery)}
                    >
                      Redeliver
                    </button>
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
      </ListView>
    </section>
  );
}

/** The body indented for reading; the exact bytes (what was signed) are the API's `body`. */
function readableBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
