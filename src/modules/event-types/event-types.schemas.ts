import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';
import { EVENT_TYPE_KINDS, type EventTypeRecord, REMINDER_AUDIENCES, type Reminder } from './event-type.rows.ts';
import {
  BookingLimitsSchema,
  BookingWindowSchema,
  CancelNoticeSchema,
  RecurrenceSchema,
  RequiresConfirmationSchema,
  RescheduleNoticeSchema,
} from './event-type-rules.schemas.ts';
import { EventTypeDescriptionSchema, EventTypeLocationsSchema } from './event-type-locations.schemas.ts';

export const EventTypeKindSchema = z.enum(EVENT_TYPE_KINDS).meta({
  id: 'EventTypeKind',
  description: 'Who hosts: the owner alone (`one_on_one`, `group`), one of several hosts in turn (`round_robin`) or all of them (`collective`).',
  examples: ['one_on_one'],
});

/** The longest a reminder may come before the meeting: 30 days. */
export const REMINDER_OFFSET_MAX_MIN = 43_200;
export const REMINDERS_MAX = 3;
/** What an event type starts with: one reminder a day before, to the invitee. */
export const DEFAULT_REMINDERS: readonly Reminder[] = [{ offsetMin: 1440, to: 'invitee' }];

export const ReminderSchema = z
  .strictObject({
    offsetMin: z
      .int()
      .min(0)
      .max(REMINDER_OFFSET_MAX_MIN)
      .meta({ description: 'Minutes before the booking’s start (0 to 43200, 30 days).', examples: [1440] }),
    to: z
      .enum(REMINDER_AUDIENCES)
      .meta({ description: 'Who gets it: `invitee` (and each guest), `host`, or `both`.', examples: ['invitee'] }),
  })
  .meta({ id: 'Reminder', description: 'An e-mail reminder sent before each booking of the event type.' });

export const RemindersSchema = z
  .array(ReminderSchema)
  .max(REMINDERS_MAX)
  .refine((reminders) => new Set(reminders.map((reminder) => reminder.offsetMin)).size === reminders.length, 'offsets must be distinct')
  .meta({
    description:
      'E-mail reminders before each booking (at most 3, distinct offsets; `[]` for none). A reminder whose time has ' +
      'already passed when a booking is made is skipped; a reschedule moves it, a cancellation drops it.',
    examples: [[{ offsetMin: 1440, to: 'invitee' }]],
  });

export const NotificationsSchema = z.boolean().meta({
  description:
    'Whether bookings of this event type send e-mail: confirmations with calendar invitations, updates, ' +
    'cancellations and reminders, to the invitee, each guest and the host. Off for those who tell invitees ' +
    'themselves (through webhooks, for example): while it is off, nothing is queued for its bookings; messages ' +
    'queued before, such as reminders of earlier bookings, still go.',
  examples: [true],
});

export const EventTypeSchema = z
  .object({
    id: z.string().meta({ description: 'The event type’s id.', examples: [EXAMPLE.eventTypeId] }),
    name: z.string().meta({ description: 'Shown on the booking page.', examples: ['Intro call'] }),
    slug: z.string().meta({ description: 'The last segment of the booking page URL.', examples: ['intro-call'] }),
    url: z
      .url()
      .describe(
        'The public booking page. For a secret event type, the private link (with its `?key=`) only in the response ' +
          'that created the key (creation, turning `secret` on, POST /event-types/{id}/private-link): the key is ' +
          'stored hashed and cannot be shown again; every other response gives the page without the key.',
      )
      .meta({ examples: ['https://scheduling.example/book/olivia/intro-call'] }),
    kind: EventTypeKindSchema,
    durationsMin: z
      .array(z.int())
      .meta({ description: 'Allowed durations in minutes; the first is the default.', examples: [[30, 60]] }),
    bufferBeforeMin: z.int().meta({ description: 'Minutes kept free before each booking.', examples: [0] }),
    bufferAfterMin: z.int().meta({ description: 'Minutes kept free after each booking.', examples: [10] }),
    color: z.string().meta({ description: 'The colour of the event type in calendars, `#rrggbb`.', examples: ['#2563eb'] }),
    active: z.boolean().meta({ description: 'An inactive event type offers no slots and refuses bookings.', examples: [true] }),
    secret: z.boolean().meta({ description: 'A secret event type is bookable only through its private link.', examples: [false] }),
    organizationId: z
      .string()
      .nullable()
      .meta({ description: 'The organisation the event type belongs to; null for a personal one.', examples: [null] }),
    reminders: RemindersSchema,
    notifications: NotificationsSchema,
    createdAt: z.iso.datetime().meta({ description: 'When the event type was created.', examples: ['2026-11-02T08:30:00Z'] }),
    updatedAt: z.iso.datetime().meta({ description: 'When a setting last changed.', examples: ['2026-11-20T17:05:00Z'] }),
    minimumNoticeMin: z.int().meta({ description: 'Slots start at least this many minutes after the moment of booking.', examples: [120] }),
    slotIntervalMin: z
      .int()
      .nullable()
      .meta({ description: 'Minutes between slot starts; null: a slot every booking duration.', examples: [15] }),
    seatsPerSlot: z
      .int()
      .nullable()
      .meta({ description: 'Invitees per slot of a group event type; null for the other kinds (one invitee each).', examples: [null] }),
    bookingWindow: BookingWindowSchema,
    limits: BookingLimitsSchema,
    cancelNoticeMin: CancelNoticeSchema,
    rescheduleNoticeMin: RescheduleNoticeSchema,
    requiresConfirmation: RequiresConfirmationSchema,
    recurrence: RecurrenceSchema,
    description: EventTypeDescriptionSchema,
    locations: EventTypeLocationsSchema,
  })
  .meta({ id: 'EventType' });

export type EventType = z.infer<typeof EventTypeSchema>;

/** The `{id, name, slug}` reference bookings and leads carry. */
export const EventTypeRefSchema = z
  .object({
    id: z.string().meta({ description: 'The event type’s id.', examples: [EXAMPLE.eventTypeId] }),
    name: z.string().meta({ description: 'The event type’s name.', examples: ['Intro call'] }),
    slug: z.string().meta({ description: 'The event type’s slug.', examples: ['intro-call'] }),
  })
  .meta({ id: 'EventTypeRef', description: 'The event type, by id, name and slug.' });

/**
 * The public booking page of an event type. A secret one is reachable only with its private link's key,
 * which only its creator (or a visitor who was given the link) knows: pass it when known.
 */
export function eventTypeUrl(siteUrl: string, ownerSlug: string, slug: string, privateLinkKey?: string): string {
  const base = `${siteUrl}/book/${encodeURIComponent(ownerSlug)}/${encodeURIComponent(slug)}`;
  return privateLinkKey ? `${base}?key=${encodeURIComponent(privateLinkKey)}` : base;
}

export function toEventTypeDto(eventType: EventTypeRecord, url: string): EventType {
  return {
    id: eventType.id,
    name: eventType.name,
    slug: eventType.slug,
    url,
    kind: eventType.kind,
    durationsMin: [...eventType.durationsMin],
    bufferBeforeMin: eventType.bufferBeforeMin,
    bufferAfterMin: eventType.bufferAfterMin,
    color: eventType.color,
    active: eventType.active,
    secret: eventType.secret,
    organizationId: eventType.organizationId,
    reminders: eventType.reminders.map(({ offsetMin, to }) => ({ offsetMin, to })),
    notifications: eventType.notifications,
    createdAt: eventType.createdAt.toISOString(),
    updatedAt: eventType.updatedAt.toISOString(),
    minimumNoticeMin: eventType.minNoticeMin,
    slotIntervalMin: eventType.slotIntervalMin,
    seatsPerSlot: eventType.kind === 'group' ? eventType.seatsPerSlot : null,
    bookingWindow: eventType.bookingWindow,
    limits: eventType.limits,
    cancelNoticeMin: eventType.cancelNoticeMin,
    rescheduleNoticeMin: eventType.rescheduleNoticeMin,
    requiresConfirmation: eventType.requiresConfirmation,
    recurrence: eventType.recurrenceMaxCount === null ? null : { maxCount: eventType.recurrenceMaxCount },
    description: eventType.description,
    locations: eventType.locations.map((location) => ({ ...location })),
  };
}
