export interface Patience {
  /** How long the other side may take to answer, counted in time this process could have read its answer. */
  ms: number;
  /** The longest wait in all, however busy the event loop (default three times `ms`). */
  maxMs?: number;
}

/**
 * `promise`, or a rejection (code ETIMEDOUT) when it has not settled in time. A busy event loop is not counted
 * against the other side: a timer that fires late (by more than half of `ms`) gives it a fresh `ms`, since its
 * answer may be waiting unread in a socket buffer, and an answer already waiting is read before the limit is
 * judged (the check runs from setImmediate, after the poll phase). So under CPU load alone a store that answers
 * is never taken for one that does not; `maxMs` still bounds the wait.
 */
export function answerWithin<T>(promise: Promise<T>, { ms, maxMs = 3 * ms }: Patience): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      finish();
    };
    const arm = () => {
      const due = performance.now() + ms;
      timer = setTimeout(() => {
        const lateMs = performance.now() - due;
        setImmediate(() => {
          if (settled) return;
          if (lateMs > ms / 2 && performance.now() - started < maxMs) return arm();
          settle(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: 'ETIMEDOUT' })));
        });
      }, ms);
    };
    arm();
    promise.then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error as Error)),
    );
  });
}
