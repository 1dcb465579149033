import { describe, expect, it } from 'vitest';
import { shouldPoll, syncEnded, SYNC_WAIT_MS, watchOf } from '../../web/src/dashboard/calendars/sync-watch.ts';
import type { Connection } from '../../web/src/dashboard/calendars/types.ts';

const connection = (change: Partial<Connection> = {}): Connection => ({
  id: 'c1',
  kind: 'ics',
  name: 'Work',
  url: 'https://calendar.example/…ics',
  status: 'ok',
  lastSyncedAt: '2026-11-24T09:00:00.000Z',
  lastError: null,
  calendars: [],
  bookingEvents: null,
  createdAt: '2026-11-20T09:00:00.000Z',
  ...change,
});

describe('watching a requested sync', () => {
  const watch = watchOf(connection(), 1_000);

  it('ends when the connection shows a new sync, status or error, or is gone', () => {
    expect(syncEnded(watch, connection(), 2_000)).toBe(false);
    expect(syncEnded(watch, connection({ lastSyncedAt: '2026-11-24T09:05:00.000Z' }), 2_000)).toBe(true);
    expect(syncEnded(watch, connection({ status: 'error', lastError: 'The feed answered 404' }), 2_000)).toBe(true);
    expect(syncEnded(watch, undefined, 2_000)).toBe(true);
  });

  it('ends after the longest a sync takes, since failing again the same way changes nothing visible', () => {
    expect(syncEnded(watch, connection(), 1_000 + SYNC_WAIT_MS - 1)).toBe(false);
    expect(syncEnded(watch, connection(), 1_000 + SYNC_WAIT_MS)).toBe(true);
  });

  it('polls while a first sync is pending or a requested one is watched', () => {
    expect(shouldPoll(null, 0)).toBe(false);
    expect(shouldPoll([connection()], 0)).toBe(false);
    expect(shouldPoll([connection(), connection({ id: 'c2', status: 'pending' })], 0)).toBe(true);
    expect(shouldPoll([connection()], 1)).toBe(true);
  });
});
