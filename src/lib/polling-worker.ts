/** Runs one statement (`$1` placeholders) on a worker's own small pool, never the one requests use. */
export type WorkerQuery = <Row>(sql: string, params: unknown[]) => Promise<Row[]>;

/**
 * A loop that claims and works through batches of due jobs kept in PostgreSQL (webhook deliveries, calendar syncs):
 * it polls again at once after a full batch, otherwise every `pollMs`, and stops between batches, with the batch in
 * hand told to give up through the signal.
 */
export function startPollingWorker(options: {
  /** Claims and works one batch; returns how many jobs it claimed. */
  runBatch: (signal: AbortSignal) => Promise<number>;
  batch: number;
  pollMs: number;
  onError: (error: unknown) => void;
}): { stop(): Promise<void> } {
  let stopped = false;
  let wake: (() => void) | undefined;
  const stopping = new AbortController();
  const loop = (async () => {
    while (!stopped) {
      let claimed = 0;
      try {
        claimed = await options.runBatch(stopping.signal);
      } catch (error) {
        options.onError(error);
      }
      if (claimed < options.batch && !stopped) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, options.pollMs).unref();
        });
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      stopping.abort();
      wake?.();
      await loop;
    },
  };
}
