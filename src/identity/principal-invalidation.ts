import pg from 'pg';
import type { InvalidationFeed } from './principal-cache.ts';

/** The channel database triggers notify (with a user id) when a token, grant or plan of that user changes. */
export const PRINCIPAL_CHANNEL = 'principal_changed';
/** The listener's application_name, so operators (and tests) can find its connection in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'principal-invalidation';

/** How often the listener proves its connection delivers notifications. */
export const CONFIRM_INTERVAL_MS = 200;
/**
 * How old the last proof may be for cached principals to be served. A revocation committed at T is applied on
 * every instance by the first proof that started after T, so no instance serves it from its cache after
 * T + MAX_UNCONFIRMED_MS (plus the proof's own round trip): the bound docs/decisions.md documents.
 */
export const MAX_UNCONFIRMED_MS = 700;
const RECONNECT_DELAY_MS = 250;

export interface InvalidationHandlers {
  onUserChanged(userId: string): void;
  /** Called whenever notifications may have been missed (connection lost, reconnected): drop everything. */
  onReset(): void;
}

export interface InvalidationListener extends InvalidationFeed {
  close(): Promise<void>;
}

/**
 * LISTENs on PRINCIPAL_CHANNEL over a connection of its own. Every CONFIRM_INTERVAL_MS it runs `select 1`:
 * PostgreSQL sends a session the notifications of every transaction committed before its query ends, before it
 * answers that query, and pg hands them to us before it resolves it. So once a proof sent at time S resolves,
 * every change committed before S has been handled; `isListening` is true only while such an S is recent.
 */
export function listenForPrincipalChanges(
  databaseUrl: string,
  handlers: InvalidationHandlers,
  onError: (error: unknown) => void,
): InvalidationListener {
  let confirmedAt = Number.NEGATIVE_INFINITY;
  let client: pg.Client | undefined;
  /** The proofs of `client` once its LISTEN took effect: a proof sent before that would confirm nothing. */
  let prove: ((after: number) => Promise<void>) | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const drop = (error?: unknown) => {
    confirmedAt = Number.NEGATIVE_INFINITY;
    handlers.onReset();
    if (error) onError(error);
    const lost = client;
    client = undefined;
    prove = undefined;
    lost?.removeAllListeners();
    lost?.on('error', () => undefined);
    void lost?.end().catch(() => undefined);
    schedule(RECONNECT_DELAY_MS);
  };

  const schedule = (delay: number) => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => void tick(), delay);
    timer.unref();
  };

  const connect = async () => {
    const fresh = new pg.Client({
      connectionString: databaseUrl,
      application_name: LISTENER_APPLICATION_NAME,
      keepAlive: true,
      // A slow proof only stops the cache being served (isListening); cutting the connection for it would churn.
      query_timeout: 5_000,
      connectionTimeoutMillis: 2_000,
    });
    fresh.on('error', (error) => {
      if (client === fresh) drop(error);
    });
    fresh.on('end', () => {
      if (client === fresh) drop();
    });
    fresh.on('notification', (message) => {
      if (message.channel === PRINCIPAL_CHANNEL && message.payload) handlers.onUserChanged(message.payload);
    });
    client = fresh;
    await fresh.connect();
    await fresh.query(`listen ${PRINCIPAL_CHANNEL}`);
    // Whatever changed before LISTEN took effect was never notified to us: start from nothing.
    handlers.onReset();
    prove = proofsOn(
      fresh,
      (sentAt) => {
        if (client === fresh) confirmedAt = Math.max(confirmedAt, sentAt);
      },
      (error) => {
        if (!closed && client === fresh) drop(error);
      },
    );
  };

  const tick = async () => {
    if (closed) return;
    try {
      if (!client) await connect();
    } catch (error) {
      // Without a client, an 'error' or 'end' event dropped it already (and scheduled the reconnection).
      if (!closed && client) drop(error);
      return;
    }
    await prove?.(performance.now());
    if (client) schedule(CONFIRM_INTERVAL_MS);
  };

  void tick();
  return {
    isListening: () => !closed && performance.now() - confirmedAt <= MAX_UNCONFIRMED_MS,
    confirmedAt: () => confirmedAt,
    // A waiting request gives up after MAX_UNCONFIRMED_MS (and looks its token up): a stalled connection must not
    // hold requests longer than it may go unconfirmed.
    confirmAfter: (after) => Promise.race([prove?.(after), delay(MAX_UNCONFIRMED_MS)]),
    async close() {
      closed = true;
      clearTimeout(timer);
      const last = client;
      client = undefined;
      prove = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}

/**
 * `select 1` proofs on one connection, one at a time: pg 8 queues a query sent while another is running (and warns
 * that pg 9 will not). A caller content with a proof sent at or after `after` gets the latest one; one that needs a
 * later proof than the running one waits for the next, sent as soon as the running one ends and shared by every
 * caller that asked meanwhile (pg's queue would not have sent it any sooner).
 */
function proofsOn(
  connection: pg.Client,
  onProof: (sentAt: number) => void,
  onFailure: (error: unknown) => void,
): (after: number) => Promise<void> {
  let latest: { sentAt: number; done: Promise<void> } | undefined;
  let running = false;
  let next: Promise<void> | undefined;
  const send = (): Promise<void> => {
    const sentAt = performance.now();
    running = true;
    const done = connection
      .query('select 1')
      .then(() => onProof(sentAt), onFailure)
      .finally(() => {
        running = false;
      });
    latest = { sentAt, done };
    return done;
  };
  return (after) => {
    if (latest && latest.sentAt >= after) return latest.done;
    // From the moment it is queued until it is sent (just after the running one ended), the next is the one to wait for.
    if (next) return next;
    if (!latest || !running) return send();
    next = latest.done.then(() => {
      next = undefined;
      return send();
    });
    return next;
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
