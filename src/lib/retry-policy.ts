/** When a job kept in PostgreSQL (a webhook delivery, an e-mail) is tried again after a failed attempt. */
export interface RetryPolicy {
  delaysMs: number[];
  /** False when an operator's schedule set the delays: then they are exact. */
  jitter: boolean;
}

/** The schedule an operator set (already parsed), used exactly; otherwise the defaults with jitter. */
export function retryPolicyOf(scheduled: number[] | undefined, defaultDelaysMs: number[]): RetryPolicy {
  return scheduled ? { delaysMs: scheduled, jitter: false } : { delaysMs: defaultDelaysMs, jitter: true };
}

/**
 * The wait before the next attempt after `attempts` attempts, or undefined when none is left; with jitter, up to
 * `jitterFraction` longer at random, so that failing receivers are not hit in waves.
 */
export function retryDelayMs(policy: RetryPolicy, attempts: number, jitterFraction: number): number | undefined {
  const delay = policy.delaysMs[attempts - 1];
  if (delay === undefined) return undefined;
  return policy.jitter ? Math.round(delay * (1 + Math.random() * jitterFraction)) : delay;
}
