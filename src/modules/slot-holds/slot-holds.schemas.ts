import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';

const holdId = z.string().min(1).max(64).meta({ description: 'The slot hold.', examples: [EXAMPLE.slotHoldId] });

/** The body of POST /slot-holds and of the booking page's hold: the slot, as GET /availability offers it. */
export const CreateSlotHoldInputSchema = z
  .object({
    eventTypeId: z.string().min(1).max(64).meta({ description: 'The event type whose slot to hold.', examples: [EXAMPLE.eventTypeId] }),
    startAt: z.iso
      .datetime({ offset: true })
      .meta({ description: 'Start of the slot, as returned by /availability.', examples: [EXAMPLE.start] }),
    durationMin: z.int().min(1).max(1440).meta({ description: 'Minutes: one of the event type’s `durationsMin`.', examples: [30] }),
  })
  .meta({ id: 'CreateSlotHoldInput' });

export type CreateSlotHoldInput = z.infer<typeof CreateSlotHoldInputSchema>;

export const SlotHoldIdInputSchema = z.object({ id: holdId });

export const SlotHoldSchema = z
  .object({
    id: z.string().meta({ description: 'The hold’s id: pass it as `holdId` to POST /bookings (or POST /booking-series).', examples: [EXAMPLE.slotHoldId] }),
    eventTypeId: z.string().meta({ description: 'The event type whose slot is held.', examples: [EXAMPLE.eventTypeId] }),
    startAt: z.iso.datetime().meta({ description: 'Start of the held slot (UTC).', examples: [EXAMPLE.start] }),
    endAt: z.iso.datetime().meta({ description: 'End of the held slot (UTC).', examples: [EXAMPLE.end] }),
    durationMin: z.int().meta({ description: 'Length of the held slot in minutes.', examples: [30] }),
    hostIds: z
      .array(z.string())
      .meta({
        description:
          'The hosts whose time is held: the one a booking would get (for round robin, the host assigned now), or every host of a collective event type.',
        examples: [[EXAMPLE.userId]],
      }),
    expiresAt: z.iso
      .datetime()
      .meta({ description: 'When the hold ends by itself (UTC); from then on the slot is like any other.', examples: [EXAMPLE.holdExpiresAt] }),
  })
  .meta({ id: 'SlotHold' });

export type SlotHold = z.infer<typeof SlotHoldSchema>;
