/**
 * Where an event type's meetings happen, and what it says about itself: `description` and `locations`, one schema
 * each, shared by what the API accepts (create, PATCH) and what it returns. Rules: docs/decisions.md, "Where the
 * meeting happens".
 */
import { z } from 'zod';

export const LOCATION_LIMITS = {
  locationsMax: 10,
  descriptionMax: 2000,
  addressMax: 500,
  urlMax: 2000,
  phoneMax: 40,
  phoneDigitsMin: 5,
  phoneDigitsMax: 20,
  /** What an invitee may type as their place or number. */
  inviteeTextMax: 500,
} as const;

/** The kinds of place an event type offers: the host's address, number or link, or the invitee's number or place. */
export const LOCATION_KINDS = ['in_person', 'phone', 'link', 'invitee_phone', 'ask_invitee'] as const;
export type LocationKind = (typeof LOCATION_KINDS)[number];

/** The kinds whose detail the invitee gives when booking (the others carry the host's). */
export const INVITEE_GIVEN_KINDS: readonly LocationKind[] = ['invitee_phone', 'ask_invitee'];

const digitCount = (text: string) => text.replace(/\D/g, '').length;

/** A phone number as people write it: digits with spaces, `( ) . / -` and a leading `+`. */
export const PhoneNumberSchema = z
  .string()
  .trim()
  .max(LOCATION_LIMITS.phoneMax)
  .regex(/^\+?[0-9 ()./-]+$/, 'must be a phone number: digits, spaces, ( ) . / - and a leading +')
  .refine(
    (text) => digitCount(text) >= LOCATION_LIMITS.phoneDigitsMin && digitCount(text) <= LOCATION_LIMITS.phoneDigitsMax,
    `must have ${LOCATION_LIMITS.phoneDigitsMin} to ${LOCATION_LIMITS.phoneDigitsMax} digits`,
  );

const InPersonSchema = z
  .strictObject({
    kind: z.literal('in_person').meta({ description: 'Meet at an address.', examples: ['in_person'] }),
    address: z
      .string()
      .trim()
      .min(1)
      .max(LOCATION_LIMITS.addressMax)
      .meta({ description: 'The address (plain text, at most 500 characters; line breaks kept).', examples: ['Torstraße 1, 10119 Berlin'] }),
  })
  .meta({ description: 'In person, at the host’s address.' });

const PhoneSchema = z
  .strictObject({
    kind: z.literal('phone').meta({ description: 'The invitee calls the host.', examples: ['phone'] }),
    number: PhoneNumberSchema.meta({ description: 'The host’s number, as it should be dialled.', examples: ['+49 30 1234567'] }),
  })
  .meta({ description: 'A phone call: the invitee calls the host’s number.' });

const LinkSchema = z
  .strictObject({
    kind: z.literal('link').meta({ description: 'Meet online.', examples: ['link'] }),
    url: z
      .url({ protocol: /^https$/, hostname: z.regexes.domain, error: 'must be an https:// address with a domain name' })
      .max(LOCATION_LIMITS.urlMax)
      .meta({ description: 'The meeting’s link (`https://`, at most 2000 characters).', examples: ['https://meet.example.com/olivia'] }),
  })
  .meta({ description: 'Online, at the host’s fixed meeting link.' });

const InviteePhoneSchema = z
  .strictObject({ kind: z.literal('invitee_phone').meta({ description: 'The host calls the invitee.', examples: ['invitee_phone'] }) })
  .meta({ description: 'A phone call: the host calls the number the invitee gives when booking.' });

const AskInviteeSchema = z
  .strictObject({ kind: z.literal('ask_invitee').meta({ description: 'The invitee says where.', examples: ['ask_invitee'] }) })
  .meta({ description: 'Wherever the invitee says: they type a place when booking.' });

export const EventTypeLocationSchema = z
  .discriminatedUnion('kind', [InPersonSchema, PhoneSchema, LinkSchema, InviteePhoneSchema, AskInviteeSchema])
  .meta({
    id: 'EventTypeLocation',
    description:
      'One place an event type offers: `in_person` (an `address`), `phone` (the host’s `number`, which the invitee ' +
      'calls), `link` (an https `url`), `invitee_phone` (the host calls the invitee’s number) or `ask_invitee` (the ' +
      'invitee types a place).',
    examples: [{ kind: 'link', url: 'https://meet.example.com/olivia' }],
  });

export type EventTypeLocation = z.infer<typeof EventTypeLocationSchema>;

/** The text a location carries: the address, number or URL; none for the kinds the invitee fills in. */
export function locationDetail(location: EventTypeLocation): string | null {
  switch (location.kind) {
    case 'in_person':
      return location.address;
    case 'phone':
      return location.number;
    case 'link':
      return location.url;
    default:
      return null;
  }
}

export const EventTypeLocationsSchema = z
  .array(EventTypeLocationSchema)
  .max(LOCATION_LIMITS.locationsMax)
  .superRefine((locations, ctx) => {
    const seen = new Set<string>();
    locations.forEach((location, index) => {
      // Several addresses may be offered (two offices); of every other kind one, so the kind names the choice.
      const key = location.kind === 'in_person' ? `in_person:${location.address.toLowerCase()}` : location.kind;
      if (seen.has(key)) {
        const what = location.kind === 'in_person' ? 'this address is listed twice' : `only one ${location.kind} location is allowed`;
        ctx.addIssue({ code: 'custom', path: [index, 'kind'], message: what });
      }
      seen.add(key);
    });
  })
  .meta({
    description:
      'Where the meeting happens, at most 10 places: with one, every booking takes it; with several, the invitee ' +
      'chooses (POST /bookings `location`). At most one of each kind, except `in_person`, which may list several ' +
      'addresses. `[]`: none (the invitee may still type a place in `locationInput`).',
    examples: [[{ kind: 'in_person', address: 'Torstraße 1, 10119 Berlin' }, { kind: 'link', url: 'https://meet.example.com/olivia' }]],
  });

export const EventTypeDescriptionSchema = z
  .string()
  .trim()
  .max(LOCATION_LIMITS.descriptionMax)
  .nullable()
  .meta({
    description:
      'What the meeting is about, shown on the booking page: plain text (no HTML or Markdown; line breaks kept), at ' +
      'most 2000 characters. Null (or an empty text): none.',
    examples: ['A first 30 minutes to see whether we fit: bring your questions.'],
  });
