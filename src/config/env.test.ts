import { describe, expect, it } from 'vitest';
import { loadEnv } from './env.ts';

describe('loadEnv: the stop and the rate-limit fallback', () => {
  it('reads SHUTDOWN_DELAY as a duration, 2 s unless set', () => {
    expect(loadEnv({}).SHUTDOWN_DELAY).toBe(2000);
    expect(loadEnv({ SHUTDOWN_DELAY: '500ms' }).SHUTDOWN_DELAY).toBe(500);
    expect(loadEnv({ SHUTDOWN_DELAY: '0s' }).SHUTDOWN_DELAY).toBe(0);
    expect(() => loadEnv({ SHUTDOWN_DELAY: '2' })).toThrow(/SHUTDOWN_DELAY/);
    expect(() => loadEnv({ SHUTDOWN_DELAY: '1s,2s' })).toThrow(/SHUTDOWN_DELAY/);
  });

  it('reads RATE_LIMIT_INSTANCES, one unless set', () => {
    expect(loadEnv({}).RATE_LIMIT_INSTANCES).toBe(1);
    expect(loadEnv({ RATE_LIMIT_INSTANCES: '4' }).RATE_LIMIT_INSTANCES).toBe(4);
    expect(() => loadEnv({ RATE_LIMIT_INSTANCES: '0' })).toThrow(/RATE_LIMIT_INSTANCES/);
  });
});
