import { expect, it } from 'vitest';

/**
 * Never part of the suite: .ci/run runs this file alone and requires a non-zero exit, proving that a failing
 * test fails the run (an exit hook once turned red runs green).
 */
it('fails on purpose', () => {
  expect(1 + 1).toBe(3);
});
