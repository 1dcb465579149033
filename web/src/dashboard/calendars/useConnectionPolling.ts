import { useCallback, useEffect, useState } from 'react';
import { POLL_MS, type SyncWatch, shouldPoll, syncEnded, watchOf } from './sync-watch.ts';
import type { Connection } from './types.ts';

/**
 * Asks for the connections again every POLL_MS while one is pending or a requested sync has not shown its outcome,
 * so the user sees it turn ok or error without reloading.
 */
export function useConnectionPolling(connections: Connection[] | null, reload: () => void) {
  const [watched, setWatched] = useState<ReadonlyMap<string, SyncWatch>>(new Map());

  useEffect(() => {
    if (!connections) return;
    setWatched((current) => {
      if (current.size === 0) return current;
      const now = Date.now();
      const byId = new Map(connections.map((connection) => [connection.id, connection]));
      const still = [...current].filter(([id, watch]) => !syncEnded(watch, byId.get(id), now));
      return still.length === current.size ? current : new Map(still);
    });
  }, [connections]);

  const polling = shouldPoll(connections, watched.size);
  useEffect(() => {
    if (!polling) return undefined;
    const timer = setInterval(reload, POLL_MS);
    return () => clearInterval(timer);
  }, [polling, reload]);

  const watch = useCallback((connection: Connection) => {
    setWatched((current) => new Map(current).set(connection.id, watchOf(connection, Date.now())));
  }, []);
  return { syncing: (id: string) => watched.has(id), watch };
}
