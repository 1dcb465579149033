/**
 * Where a new booking happens: the invitee's choice among its event type's locations, resolved to the booking's
 * `location` (`{kind, value}`). Pure, so every rule is unit-tested alone; a wrong choice is a 400 naming the field.
 * Rules: docs/decisions.md, "Where the meeting happens".
 */
import { invalidField } from '../../lib/errors.ts';
import {
  type EventTypeLocation,
  INVITEE_GIVEN_KINDS,
  LOCATION_LIMITS,
  type LocationKind,
  locationDetail,
  PhoneNumberSchema,
} from '../event-types/event-type-locations.schemas.ts';

/** A booking's place as the API shows it: the kind and the text to show (address, number, URL or typed place). */
export interface BookingLocation {
  kind: string;
  value: string | null;
}

/** The kind a booking stores for a place the invitee typed (also without locations, through `locationInput`). */
export const INVITEE_INPUT_KIND = 'invitee_input';

/** What the booking request says about the place. */
export interface LocationRequest {
  location?: { kind: LocationKind; value?: string | undefined } | undefined;
  locationInput?: string | undefined;
}

const given = (text: string | undefined): string | undefined => (text === undefined || text.trim() === '' ? undefined : text.trim());

function offeredList(offered: readonly EventTypeLocation[]): string {
  return offered.map((option) => (option.kind === 'in_person' ? `in_person (${option.address})` : option.kind)).join(', ');
}

/** The booking's location; 400 naming `location`, `location.kind`, `location.value` or `locationInput` otherwise. */
export function resolveBookingLocation(offered: readonly EventTypeLocation[], request: LocationRequest): BookingLocation | null {
  if (offered.length === 0) {
    if (request.location) throw invalidField(['location'], 'this event type offers no locations to choose from; leave it out');
    // As before event types had locations: whatever the invitee typed, as sent.
    return request.locationInput ? { kind: INVITEE_INPUT_KIND, value: request.locationInput } : null;
  }
  const typed = given(request.locationInput);
  const choice = request.location;
  if (!choice && offered.length > 1) {
    throw invalidField(['location'], `choose one of this event type's locations: ${offeredList(offered)}`);
  }
  const kind = choice?.kind ?? offered[0]!.kind;
  const candidates = offered.filter((option) => option.kind === kind);
  if (candidates.length === 0) {
    throw invalidField(['location', 'kind'], `this event type offers ${offeredList(offered)}, not ${kind}`);
  }
  return INVITEE_GIVEN_KINDS.includes(kind) ? inviteeGiven(kind, choice?.value, request.locationInput) : hostGiven(candidates, choice?.value, typed);
}

/** An address, number or link of the host's: named by `value` when the event type offers several of that kind. */
function hostGiven(candidates: readonly EventTypeLocation[], value: string | undefined, typed: string | undefined): BookingLocation {
  const kind = candidates[0]!.kind;
  if (typed !== undefined) {
    throw invalidField(['locationInput'], `the ${kind} location needs nothing from the invitee; leave locationInput out`);
  }
  const wanted = given(value);
  const details = candidates.map((option) => locationDetail(option)!);
  if (wanted === undefined) {
    // Only in_person may come several times (the schema allows one of every other kind).
    if (details.length > 1) throw invalidField(['location', 'value'], `this event type offers several addresses; name one: ${details.join('; ')}`);
    return { kind, value: details[0]! };
  }
  const detail = details.find((text) => text.toLowerCase() === wanted.toLowerCase());
  if (detail === undefined) {
    // Only addresses are named: the host's number and link are not shown before a booking (public page).
    const why = kind === 'in_person' ? `is not one of this event type's addresses: ${details.join('; ')}` : `is not this event type's ${kind}; leave it out`;
    throw invalidField(['location', 'value'], why);
  }
  return { kind, value: detail };
}

/** The invitee's number (`invitee_phone`) or place (`ask_invitee`), in `location.value` or `locationInput`. */
function inviteeGiven(kind: LocationKind, value: string | undefined, locationInput: string | undefined): BookingLocation {
  const fromValue = given(value);
  const typed = given(locationInput);
  if (fromValue !== undefined && typed !== undefined && fromValue !== typed) {
    throw invalidField(['locationInput'], 'differs from location.value; give it once, in location.value');
  }
  const text = fromValue ?? typed;
  const path = fromValue === undefined && typed !== undefined ? ['locationInput'] : ['location', 'value'];
  if (text === undefined) {
    const what = kind === 'invitee_phone' ? 'the phone number the host should call' : 'where to meet';
    throw invalidField(['location', 'value'], `give ${what}`);
  }
  if (kind === 'invitee_phone') {
    const number = PhoneNumberSchema.safeParse(text);
    if (!number.success) throw invalidField(path, number.error.issues[0]!.message);
    return { kind, value: number.data };
  }
  if (text.length > LOCATION_LIMITS.inviteeTextMax) throw invalidField(path, `must be at most ${LOCATION_LIMITS.inviteeTextMax} characters`);
  return { kind: INVITEE_INPUT_KIND, value: text };
}
