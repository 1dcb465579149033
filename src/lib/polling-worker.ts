/** Runs one statement (`$1` placeholders) on a worker's own small pool, never the one requests use. */
export type WorkerQuery = <Row>(sql: string, params: unknown[]) => Promise<Row[]>;

/**
 * A loop that claims and works through batches of due jobs kept in PostgreSQL (webhook deliveries):
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
  const control = pollControl();
  const loop = (async () => {
    while (!control.stopped) {
      let claimed = 0;
      try {
        claimed = await options.runBatch(control.signal);
      } catch (error) {
        options.onError(error);
      }
      if (claimed < options.batch && !control.stopped) await control.pause(options.pollMs);
    }
  })();
  return { stop: () => control.stop(loop) };
}

/**
 * A loop that keeps up to `concurrency` jobs kept in PostgreSQL in hand (calendar syncs), each running on its own:
 * a poll claims as many as there are free places, and a job that ends frees its place at once. So a slow job
 * holds only its own place, never the others' or the next claims. On stop, claiming ends and the jobs in hand
 * are told to give up through the signal, then awaited.
 */
export function startJobPool<Job>(options: {
  /** Claims up to `limit` due jobs. */
  claim: (limit: number) => Promise<Job[]>;
  run: (job: Job, signal: AbortSignal) => Promise<void>;
  concurrency: number;
  pollMs: number;
  onError: (error: unknown) => void;
}): { stop(): Promise<void> } {
  const control = pollControl();
  const running = new Set<Promise<void>>();
  const start = (job: Job) => {
    const done: Promise<void> = options
      .run(job, control.signal)
      .catch(options.onError)
      .finally(() => {
        running.delete(done);
        control.wake();
      });
    running.add(done);
  };
  const loop = (async () => {
    while (!control.stopped) {
      const free = options.concurrency - running.size;
      let claimed: Job[] = [];
      if (free > 0) {
        try {
          claimed = await options.claim(free);
        } catch (error) {
          options.onError(error);
        }
      }
      for (const job of claimed) start(job);
      // A full claim may leave more due: claim again at once. Otherwise wait for the next poll or a free place.
      if ((free === 0 || claimed.length < free) && !control.stopped) await control.pause(options.pollMs);
    }
    await Promise.all(running);
  })();
  return { stop: () => control.stop(loop) };
}

/**
 * What both loops share: the pause between polls, which `wake()` and the stop end early, and the stop, which tells
 * the work in hand to give up (`signal`) and waits for the loop to end.
 */
function pollControl() {
  let stopped = false;
  let wake: (() => void) | undefined;
  const stopping = new AbortController();
  return {
    get stopped() {
      return stopped;
    },
    signal: stopping.signal,
    wake: () => wake?.(),
    pause: (ms: number) =>
      new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, ms).unref();
      }),
    async stop(loop: Promise<void>) {
      stopped = true;
      stopping.abort();
      wake?.();
      await loop;
    },
  };
}
