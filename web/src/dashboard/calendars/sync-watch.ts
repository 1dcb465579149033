import type { Connection } from './types.ts';

/** How often the page asks again while a sync is under way. */
export const POLL_MS = 1500;
/** How long a requested sync is watched for before the page stops asking (a sync's fetch gives up after 10 s). */
export const SYNC_WAIT_MS = 20_000;

/** What a connection looked like when its sync was requested, and until when to wait for a change. */
export interface SyncWatch {
  lastSyncedAt: string | null;
  status: Connection['status'];
  lastError: string | null;
  until: number;
}

export function watchOf(connection: Connection, now: number): SyncWatch {
  const { lastSyncedAt, status, lastError } = connection;
  return { lastSyncedAt, status, lastError, until: now + SYNC_WAIT_MS };
}

/**
 * Whether a requested sync is over as far as the page can tell: the connection shows a new sync, status or error
 * (a sync failing again with the same error changes nothing visible, so the wait also ends at `until`), or it is gone.
 */
export function syncEnded(watch: SyncWatch, connection: Connection | undefined, now: number): boolean {
  if (!connection || now >= watch.until) return true;
  return (
    connection.status !== 'pending' &&
    (connection.lastSyncedAt !== watch.lastSyncedAt || connection.status !== watch.status || connection.lastError !== watch.lastError)
  );
}

/** Whether the page should keep asking: a first sync still pending, or a requested one not yet seen to end. */
export function shouldPoll(connections: readonly Connection[] | null, watched: number): boolean {
  return watched > 0 || (connections ?? []).some((connection) => connection.status === 'pending');
}
