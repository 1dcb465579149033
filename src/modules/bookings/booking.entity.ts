import { defineEntity, p } from '@mikro-orm/core';

export const BOOKING_STATUSES = ['active', 'canceled'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

export interface BookingAnswer {
  questionId: string;
  value: string;
}

export const BookingEntity = defineEntity({
  name: 'Booking',
  tableName: 'booking',
  properties: {
    id: p.string().primary(),
    ownerId: p.string(),
    hostId: p.string(),
    eventTypeId: p.string(),
    startAt: p.datetime(),
    endAt: p.datetime(),
    durationMin: p.integer(),
    status: p.enum(BOOKING_STATUSES).default('active'),
    inviteeName: p.string(),
    inviteeEmail: p.string(),
    inviteeTimezone: p.string(),
    inviteePhone: p.string().nullable(),
    inviteeSmsOptIn: p.boolean().default(false),
    guests: p.array(),
    answers: p.json<BookingAnswer[]>(),
    notes: p.string().nullable(),
    locationKind: p.string().nullable(),
    locationValue: p.string().nullable(),
    noShow: p.boolean().default(false),
    canceledAt: p.datetime().nullable(),
    cancelReason: p.string().nullable(),
    canceledBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

/**
 * A host's busy time for one booked slot, buffers included. `busy` (a tstzrange) is written with SQL:
 * the exclusion constraint on it is the double-booking guard.
 */
export const BusyBlockEntity = defineEntity({
  name: 'BusyBlock',
  tableName: 'busy_block',
  properties: {
    id: p.string().primary(),
    hostId: p.string(),
    eventTypeId: p.string(),
    startAt: p.datetime(),
    endAt: p.datetime(),
    busy: p.string().columnType('tstzrange'),
    seatsTaken: p.integer().default(1),
    active: p.boolean().default(true),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export const BookingBusyBlockEntity = defineEntity({
  name: 'BookingBusyBlock',
  tableName: 'booking_busy_block',
  properties: {
    bookingId: p.string().primary(),
    busyBlockId: p.string().primary(),
  },
});
