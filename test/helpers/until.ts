/**
 * Reads until `done` holds or `timeoutMs` has passed, then returns the last value read: the caller's assertion on
 * it says what went wrong, rather than a bare timeout.
 */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
