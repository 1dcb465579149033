import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';
import { DEFAULT_REMINDERS, EventTypeKindSchema, NotificationsSchema, RemindersSchema } from './event-types.schemas.ts';
import {
  BookingLimitsSchema,
  BookingWindowSchema,
  CancelNoticeSchema,
  RecurrenceSchema,
  RequiresConfirmationSchema,
  RescheduleNoticeSchema,
} from './event-type-rules.schemas.ts';
import { EventTypeDescriptionSchema, EventTypeLocationsSchema } from './event-type-locations.schemas.ts';

/** Limits of the writable event type settings (also in the OpenAPI document through the schemas). */
export const EVENT_TYPE_LIMITS = {
  nameMax: 100,
  slugMax: 60,
  durationsMax: 12,
  durationMin: 5,
  durationMax: 720,
  bufferMax: 240,
  minimumNoticeMax: 525_600,
  slotIntervalMin: 5,
  slotIntervalMax: 720,
  seatsMin: 2,
  seatsMax: 1000,
} as const;

/** Seats of a group event type when none are given. */
export const DEFAULT_GROUP_SEATS = 10;

const NameSchema = z.string().trim().min(1).max(EVENT_TYPE_LIMITS.nameMax).meta({ description: 'Shown on the booking page.', examples: ['Intro call'] });

export const EventTypeSlugSchema = z
  .string()
  .min(1)
  .max(EVENT_TYPE_LIMITS.slugMax)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lower-case letters and digits in words joined by single hyphens')
  .meta({ description: 'The last segment of the booking page URL; unique among the user’s event types (409 when taken).', examples: ['intro-call'] });

const DurationsSchema = z
  .array(z.int().min(EVENT_TYPE_LIMITS.durationMin).max(EVENT_TYPE_LIMITS.durationMax))
  .min(1)
  .max(EVENT_TYPE_LIMITS.durationsMax)
  .refine((durations) => new Set(durations).size === durations.length, 'durations must be distinct')
  .meta({ description: 'Allowed durations in minutes (5 to 720, distinct); the first is the default.', examples: [[30, 60]] });

const BufferSchema = z.int().min(0).max(EVENT_TYPE_LIMITS.bufferMax).meta({ examples: [10] });

const ColorSchema = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour written #rrggbb')
  .meta({ description: 'The colour of the event type in calendars, `#rrggbb`; stored in lower case.', examples: ['#2563eb'] });

const MinimumNoticeSchema = z
  .int()
  .min(0)
  .max(EVENT_TYPE_LIMITS.minimumNoticeMax)
  .meta({
    description: 'Slots start at least this many minutes after the moment of booking (at most a year).',
    examples: [120],
  });

const SlotIntervalSchema = z
  .int()
  .min(EVENT_TYPE_LIMITS.slotIntervalMin)
  .max(EVENT_TYPE_LIMITS.slotIntervalMax)
  .nullable()
  .meta({ description: 'Minutes between slot starts; null starts a slot every booking duration.', examples: [15] });

const SeatsSchema = z
  .int()
  .min(EVENT_TYPE_LIMITS.seatsMin)
  .max(EVENT_TYPE_LIMITS.seatsMax)
  .meta({
    description: `Invitees per slot, for group event types only (400 for another kind). Default ${DEFAULT_GROUP_SEATS}.`,
    examples: [DEFAULT_GROUP_SEATS],
  });

const SecretSchema = z
  .boolean()
  .meta({ description: 'A secret event type is bookable only through its private link: `url` then carries the link’s key.', examples: [false] });

const ActiveSchema = z.boolean().meta({ description: 'An inactive event type offers no slots and refuses bookings.', examples: [true] });

function unknownFieldsMessage(keys: readonly string[]): string {
  const messages = [];
  if (keys.includes('kind')) messages.push('kind cannot change once the event type is created; create another event type instead');
  const others = keys.filter((key) => key !== 'kind');
  if (others.length > 0) messages.push(`unknown field${others.length > 1 ? 's' : ''}: ${others.join(', ')}`);
  return messages.join('; ');
}

/** The body of POST /event-types. Unknown fields are refused (400), so a misspelt setting never goes unnoticed. */
export const CreateEventTypeInputSchema = z
  .strictObject(
    {
      name: NameSchema,
      slug: EventTypeSlugSchema.optional().describe(
        'The last segment of the booking page URL, unique among the user’s event types (409 when taken). ' +
          'Default: derived from the name, with `-2`, `-3`… appended when that is taken.',
      ),
      kind: EventTypeKindSchema.default('one_on_one').describe(
        'Cannot change later. Round-robin and collective event types are hosted by the owner alone unless hosts were set up outside the API.',
      ),
      durationsMin: DurationsSchema,
      bufferBeforeMin: BufferSchema.default(0).describe('Minutes kept free before each booking (0 to 240).'),
      bufferAfterMin: BufferSchema.default(0).describe('Minutes kept free after each booking (0 to 240).'),
      color: ColorSchema.default('#2563eb'),
      secret: SecretSchema.default(false),
      active: ActiveSchema.default(true),
      minimumNoticeMin: MinimumNoticeSchema.default(0),
      slotIntervalMin: SlotIntervalSchema.default(null),
      seatsPerSlot: SeatsSchema.optional(),
      bookingWindow: BookingWindowSchema.default(null),
      limits: BookingLimitsSchema.default(null),
      cancelNoticeMin: CancelNoticeSchema.default(0),
      rescheduleNoticeMin: RescheduleNoticeSchema.default(0),
      requiresConfirmation: RequiresConfirmationSchema.default(false),
      recurrence: RecurrenceSchema.default(null),
      reminders: RemindersSchema.default(() => DEFAULT_REMINDERS.map((reminder) => ({ ...reminder }))),
      description: EventTypeDescriptionSchema.default(null),
      locations: EventTypeLocationsSchema.default([]),
      notifications: NotificationsSchema.default(true),
    },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? unknownFieldsMessage(issue.keys) : undefined) },
  )
  .meta({ id: 'CreateEventTypeInput' });

export type CreateEventTypeInput = z.infer<typeof CreateEventTypeInputSchema>;

const EventTypeIdSchema = z.string().min(1).max(100).meta({ description: 'The event type.', examples: [EXAMPLE.eventTypeId] });

/** PATCH /event-types/{id}: any of the creation fields but `kind`; absent fields keep their value. */
export const UpdateEventTypeInputSchema = z
  .strictObject(
    {
      id: EventTypeIdSchema,
      name: NameSchema.optional(),
      slug: EventTypeSlugSchema.optional(),
      durationsMin: DurationsSchema.optional(),
      bufferBeforeMin: BufferSchema.optional().describe('Minutes kept free before each booking (0 to 240).'),
      bufferAfterMin: BufferSchema.optional().describe('Minutes kept free after each booking (0 to 240).'),
      color: ColorSchema.optional(),
      secret: SecretSchema.optional().describe(
        'Turning it on creates a new private link (the `url` carries its key); turning it off discards the link.',
      ),
      active: ActiveSchema.optional(),
      minimumNoticeMin: MinimumNoticeSchema.optional(),
      slotIntervalMin: SlotIntervalSchema.optional(),
      seatsPerSlot: SeatsSchema.optional(),
      bookingWindow: BookingWindowSchema.optional(),
      limits: BookingLimitsSchema.optional().describe('Replaces the limits as a whole; null or `{}` removes them.'),
      cancelNoticeMin: CancelNoticeSchema.optional(),
      rescheduleNoticeMin: RescheduleNoticeSchema.optional(),
      requiresConfirmation: RequiresConfirmationSchema.optional().describe(
        'Turning it off leaves bookings already pending to be confirmed or declined; new ones are active at once.',
      ),
      recurrence: RecurrenceSchema.optional(),
      reminders: RemindersSchema.optional(),
      description: EventTypeDescriptionSchema.optional(),
      locations: EventTypeLocationsSchema.optional().describe(
        'Replaces the list as a whole; `[]` removes every place. Bookings already made keep the place they were booked with.',
      ),
      notifications: NotificationsSchema.optional(),
    },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? unknownFieldsMessage(issue.keys) : undefined) },
  )
  .meta({ id: 'UpdateEventTypeInput' });

export type UpdateEventTypeInput = z.infer<typeof UpdateEventTypeInputSchema>;

export const EventTypeIdInputSchema = z.object({ id: EventTypeIdSchema });
