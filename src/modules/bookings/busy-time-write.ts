/**
 * What every write of busy time (a booking, a series, a reschedule, a hold) takes from its request: the time, the
 * request's deadline, and how to refresh the hosts' stale calendars before deciding.
 */
import type { Clock } from '../../lib/clock.ts';
import { staleRefreshOf } from '../calendars/calendar-sync.ts';

interface WriteRequest {
  clock: Clock;
  env: Parameters<typeof staleRefreshOf>[0];
  request: { deadline?: AbortSignal };
}

export function busyTimeWriteOf(ctx: WriteRequest) {
  return { now: ctx.clock.now(), deadline: ctx.request.deadline, calendarRefresh: staleRefreshOf(ctx.env, ctx.clock) };
}
