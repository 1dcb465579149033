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

  it('reads the calendar durations: a 10 min sync interval and 15 min staleness unless set', () => {
    expect(loadEnv({})).toMatchObject({ CALENDAR_SYNC_INTERVAL: 600_000, CALENDAR_MAX_STALENESS: 900_000, CALENDAR_ALLOW_PRIVATE_NETWORKS: false });
    expect(loadEnv({ CALENDAR_SYNC_INTERVAL: '30s', CALENDAR_MAX_STALENESS: '1h' })).toMatchObject({
      CALENDAR_SYNC_INTERVAL: 30_000,
      CALENDAR_MAX_STALENESS: 3_600_000,
    });
    expect(() => loadEnv({ CALENDAR_SYNC_INTERVAL: '500ms' })).toThrow(/CALENDAR_SYNC_INTERVAL/);
    expect(() => loadEnv({ CALENDAR_MAX_STALENESS: 'soon' })).toThrow(/CALENDAR_MAX_STALENESS/);
  });

  it('reads SLOT_HOLD_TTL as a duration from 1 s to 30 min, 10 min unless set', () => {
    expect(loadEnv({}).SLOT_HOLD_TTL).toBe(600_000);
    expect(loadEnv({ SLOT_HOLD_TTL: '20s' }).SLOT_HOLD_TTL).toBe(20_000);
    expect(loadEnv({ SLOT_HOLD_TTL: '30m' }).SLOT_HOLD_TTL).toBe(1_800_000);
    for (const bad of ['31m', '1h', '500ms', '0s', 'soon', '10m,20m']) {
      expect(() => loadEnv({ SLOT_HOLD_TTL: bad }), bad).toThrow(/SLOT_HOLD_TTL/);
    }
  });
});
