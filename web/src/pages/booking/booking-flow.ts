import { useRef, useState } from 'react';
import { errorStatus } from '../../api.ts';
import { browserTimeZone } from '../../time.ts';
import { type HeldSlot, holdSlot, letGo } from './slot-hold.ts';
import type { BookedSeries, Booking, EventTypeInfo, Slot } from './types.ts';

/** The hold on the picked time: being asked for, kept until `expiresAt`, or none (the page books without one). */
export type HoldState = { kind: 'holding' } | { kind: 'held'; hold: HeldSlot } | { kind: 'none' };

type Step =
  | { kind: 'pick' }
  | { kind: 'details'; slot: Slot; hold: HoldState }
  | { kind: 'booked'; booking: Booking }
  | { kind: 'series-booked'; series: BookedSeries }
  | { kind: 'lead' }
  | { kind: 'lead-done'; email: string };

const TAKEN = 'Sorry, that time has just been taken. Please pick another one.';

/** One pick of a time: its hold once it comes, and whether the invitee has moved on from it meanwhile. */
interface Pick {
  hold?: HeldSlot;
  left: boolean;
}

/**
 * What the steps of the booking page share: the step shown, the duration, zone and week chosen (kept when the
 * visitor comes back to the times), and why they were sent back, if a time was taken meanwhile. Picking a time
 * holds it while the invitee fills in the form (nobody else can take it); going back lets it go.
 */
export function useBookingFlow(eventType: EventTypeInfo, privateKey: string | null) {
  const [step, setStep] = useState<Step>({ kind: 'pick' });
  const [duration, setDuration] = useState<number>(eventType.durationsMin[0] ?? 30);
  const [timeZone, setTimeZone] = useState(browserTimeZone);
  const [week, setWeek] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  // Coming back to the times (not the first visit): focus their heading, so keyboard users are not lost.
  const [returned, setReturned] = useState(false);
  const picked = useRef<Pick | null>(null);

  /** Leaves the current pick: its hold is let go now, or as soon as it comes. */
  const leavePick = (keepHold = false) => {
    const current = picked.current;
    picked.current = null;
    if (!current) return;
    current.left = true;
    if (current.hold && !keepHold) letGo(current.hold);
  };
  const backToTimes = () => {
    leavePick();
    setReturned(true);
    setStep({ kind: 'pick' });
  };
  const slotGone = (message: string) => {
    setNotice(message);
    backToTimes();
  };

  const pick = (slot: Slot) => {
    leavePick();
    setNotice(null);
    // A group slot's seats are shared by its bookings and not held: the booking decides.
    if (eventType.kind === 'group') return setStep({ kind: 'details', slot, hold: { kind: 'none' } });
    const current: Pick = { left: false };
    picked.current = current;
    setStep({ kind: 'details', slot, hold: { kind: 'holding' } });
    holdSlot({ eventTypeId: eventType.id, key: privateKey, startAt: slot.start, durationMin: duration }).then(
      (hold) => {
        if (current.left) return letGo(hold);
        current.hold = hold;
        setStep({ kind: 'details', slot, hold: { kind: 'held', hold } });
      },
      (error: unknown) => {
        if (current.left) return;
        // Taken or held by someone else, or no longer offered: back to the times. Otherwise book without a hold.
        const status = errorStatus(error);
        if (status === 409 || status === 400) slotGone(TAKEN);
        else setStep({ kind: 'details', slot, hold: { kind: 'none' } });
      },
    );
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
    pick,
    slotGone,
    booked: (booking: Booking) => {
      // Booking with the hold ended it.
      leavePick(true);
      setStep({ kind: 'booked', booking });
    },
    seriesBooked: (series: BookedSeries) => {
      // Booking the series with the hold ended it.
      leavePick(true);
      setStep({ kind: 'series-booked', series });
    },
    leaveDetails: () => setStep({ kind: 'lead' }),
    detailsLeft: (email: string) => setStep({ kind: 'lead-done', email }),
  };
}
