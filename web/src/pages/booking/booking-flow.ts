import { useState } from 'react';
import { browserTimeZone } from '../../time.ts';
import type { BookedSeries, Booking, EventTypeInfo, Slot } from './types.ts';

type Step =
  | { kind: 'pick' }
  | { kind: 'details'; slot: Slot }
  | { kind: 'booked'; booking: Booking }
  | { kind: 'series-booked'; series: BookedSeries }
  | { kind: 'lead' }
  | { kind: 'lead-done'; email: string };

/**
 * What the steps of the booking page share: the step shown, the duration, zone and week chosen (kept when the
 * visitor comes back to the times), and why they were sent back, if a time was taken meanwhile.
 */
export function useBookingFlow(eventType: EventTypeInfo) {
  const [step, setStep] = useState<Step>({ kind: 'pick' });
  const [duration, setDuration] = useState<number>(eventType.durationsMin[0] ?? 30);
  const [timeZone, setTimeZone] = useState(browserTimeZone);
  const [week, setWeek] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  // Coming back to the times (not the first visit): focus their heading, so keyboard users are not lost.
  const [returned, setReturned] = useState(false);
  const backToTimes = () => {
    setReturned(true);
    setStep({ kind: 'pick' });
  };
  return {
    step,
    duration,
    setDuration,
    timeZone,
    setTimeZone,
    week,
    setWeek,
    notice,
    returned,
    backToTimes,
    pick: (slot: Slot) => {
      setNotice(null);
      setStep({ kind: 'details', slot });
    },
    slotGone: (message: string) => {
      setNotice(message);
      backToTimes();
    },
    booked: (booking: Booking) => setStep({ kind: 'booked', booking }),
    seriesBooked: (series: BookedSeries) => setStep({ kind: 'series-booked', series }),
    leaveDetails: () => setStep({ kind: 'lead' }),
    detailsLeft: (email: string) => setStep({ kind: 'lead-done', email }),
  };
}
