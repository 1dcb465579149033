import { useEffect, useMemo, useState } from 'react';
import { api, errorMessage } from '../../api.ts';
import { addDays, dateKey, type LocalDate, localDateOf, startOfLocalDate } from '../../time.ts';
import type { EventTypeAccess, Slot } from './types.ts';

const DAYS_PER_PAGE = 7;

/**
 * The free times of one week (`page` weeks after the current one) for an event type, a duration and a zone: its
 * days, the slots of each day, and the failure of the query, with `retry` to ask again.
 */
export function useWeekSlots(eventTypeId: string, access: EventTypeAccess, duration: number, timeZone: string, page: number) {
  const today = useMemo(() => localDateOf(Date.now(), timeZone), [timeZone]);
  const [slots, setSlots] = useState<Slot[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  const days = useMemo(
    () => Array.from({ length: DAYS_PER_PAGE }, (_, index) => addDays(today, page * DAYS_PER_PAGE + index)),
    [today, page],
  );
  const firstDay = days[0] ?? today;
  const lastDay = days[days.length - 1] ?? today;

  // One query per week, duration and zone; `attempt` makes "Try again" ask again.
  const request = useMemo(
    () => ({
      input: {
        eventTypeId,
        from: new Date(startOfLocalDate(firstDay, timeZone)).toISOString(),
        to: new Date(startOfLocalDate(addDays(lastDay, 1), timeZone)).toISOString(),
        tz: timeZone,
        duration,
        ...access,
      },
      attempt,
    }),
    [eventTypeId, access, firstDay, lastDay, timeZone, duration, attempt],
  );

  useEffect(() => {
    let cancelled = false;
    setSlots(null);
    setError(null);
    api.publicBooking.availability
      .query(request.input)
      .then((result) => {
        if (!cancelled) setSlots(result.data);
      })
      .catch((caught: unknown) => {
        if (!cancelled) setError(errorMessage(caught));
      });
    return () => {
      cancelled = true;
    };
  }, [request]);

  const byDay = useMemo(() => {
    const grouped = new Map<string, Slot[]>();
    for (const slot of slots ?? []) {
      const key = dateKey(localDateOf(Date.parse(slot.start), timeZone));
      const list = grouped.get(key) ?? [];
      list.push(slot);
      grouped.set(key, list);
    }
    return grouped;
  }, [slots, timeZone]);

  return {
    days,
    firstDay,
    lastDay,
    /** Null until the week's times have come. */
    slots,
    slotsOf: (day: LocalDate) => byDay.get(dateKey(day)) ?? [],
    error,
    retry: () => setAttempt((n) => n + 1),
  };
}
