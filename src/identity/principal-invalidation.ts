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
 * T + MAX_UNCONFIRMED_MS (plus the proof's own round trip): the bound the README documents.
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
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const drop = (error?: unknown) => {
    confirmedAt = Number.NEGATIVE_INFINITY;
    handlers.onReset();
    if (error) onError(error);
    const lost = client;
    client = undefined;
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
  };

  /** One proof: `select 1` on the listening connection; a proof already sent at or after `after` is reused. */
  let inFlight: { sentAt: number; done: Promise<void> } | undefined;
  const prove = (after: number): Promise<void> => {
    if (inFlight && inFlight.sentAt >= after) return inFlight.done;
    const listening = client;
    if (!listening) return Promise.resolve();
    const sentAt = performance.now();
    const done = listening.query('select 1').then(
      () => {
        if (client === listening) confirmedAt = Math.max(confirmedAt, sentAt);
      },
      (error: unknown) => {
        if (!closed && client === listening) drop(error);
      },
    );
    inFlight = { sentAt, done };
    return done;
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
    await prove(performance.now());
    if (client) schedule(CONFIRM_INTERVAL_MS);
  };

  void tick();
  return {
    isListening: () => !closed && performance.now() - confirmedAt <= MAX_UNCONFIRMED_MS,
    confirmedAt: () => confirmedAt,
    // A waiting request gives up after MAX_UNCONFIRMED_MS (and looks its token up): a stalled connection must not
    // hold requests longer than it may go unconfirmed.
    confirmAfter: (after) => Promise.race([prove(after), delay(MAX_UNCONFIRMED_MS)]),
    async close() {
      closed = true;
      clearTimeout(timer);
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
