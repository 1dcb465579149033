import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../../api.ts';
import { ErrorNotice, formatDateTime, LoadFailed, Spinner } from '../../components/ui.tsx';
import type { DeliveryItem, OnSessionLost } from './types.ts';

const STATUS_BADGE: Record<DeliveryItem['status'], string> = {
  pending: 'badge-warning',
  succeeded: 'badge-accent',
  failed: 'badge-danger',
};

/** One endpoint's delivery log, newest first, with a redeliver button per delivery. */
export function WebhookDeliveries(props: { webhookId: string; refreshKey: number; onSessionLost: OnSessionLost }) {
  const { webhookId, refreshKey, onSessionLost } = props;
  const [deliveries, setDeliveries] = useState<DeliveryItem[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setDeliveries((await api.webhooks.deliveries.query({ id: webhookId, limit: 20 })).data);
      setLoadError(null);
    } catch (error) {
      onSessionLost(error);
      setLoadError(errorMessage(error));
    }
  }, [webhookId, onSessionLost]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey is how the parent asks for a reload
  useEffect(() => {
    void load();
  }, [load, refreshKey]);

  async function redeliver(delivery: DeliveryItem) {
    setActionError(null);
    try {
      const queued = await api.webhooks.redeliver.mutate({ id: webhookId, deliveryId: delivery.id });
      setDeliveries((current) => [queued, ...(current ?? [])]);
    } catch (error) {
      onSessionLost(error);
      setActionError(`The event could not be sent again. ${errorMessage(error)}`);
    }
  }

  return (
    <section className="deliveries" aria-label="Delivery log" data-testid="delivery-log">
      <div className="item-head">
        <h4>Recent deliveries</h4>
        <button type="button" className="btn btn-small" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      {actionError && <ErrorNotice>{actionError}</ErrorNotice>}
      {loadError && <LoadFailed what="The delivery log" reason={loadError} onRetry={() => void load()} />}
      {!deliveries && !loadError && <Spinner label="Loading deliveries…" />}
      {deliveries && deliveries.length === 0 && <p className="muted">No deliveries yet. Send a test event to see one here.</p>}
      {deliveries && deliveries.length > 0 && (
        <ul className="delivery-list">
          {deliveries.map((delivery) => (
            <li key={delivery.id} className="delivery" data-testid="delivery">
              <div className="item-title">
                <strong className="mono">{delivery.eventType}</strong>
                <span className={`badge ${STATUS_BADGE[delivery.status]}`}>{delivery.status}</span>
              </div>
              <dl className="meta">
                <dt>Queued</dt>
                <dd>{formatDateTime(delivery.createdAt)}</dd>
                <dt>Attempts</dt>
                <dd>{delivery.attempts}</dd>
                <dt>Last answer</dt>
                <dd>{delivery.lastStatusCode ?? delivery.lastError ?? '—'}</dd>
                {delivery.status === 'pending' && delivery.nextAttemptAt && (
                  <>
                    <dt>Next attempt</dt>
                    <dd>{formatDateTime(delivery.nextAttemptAt)}</dd>
                  </>
                )}
                {delivery.deliveredAt && (
                  <>
                    <dt>Delivered</dt>
                    <dd>{formatDateTime(delivery.deliveredAt)}</dd>
                  </>
                )}
                <dt>Event id</dt>
                <dd className="mono">{delivery.eventId}</dd>
              </dl>
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
    </section>
  );
}
