import type { RouterOutputs } from './api.ts';

/** A place an event type offers, as its owner edits it. */
export type EventTypeLocation = RouterOutputs['eventTypes']['list']['data'][number]['locations'][number];
export type LocationKind = EventTypeLocation['kind'];
/** A place as the public booking page lists it (the address only for `in_person`). */
export type LocationOption = RouterOutputs['publicBooking']['eventType']['locations'][number];
/** Where a booking happens, as the API returns it. */
export type BookedLocation = NonNullable<RouterOutputs['bookings']['list']['data'][number]['location']>;

/** The host's names for each kind, in the event type editor. */
export const KIND_NAMES: Record<LocationKind, string> = {
  in_person: 'In person, at an address',
  link: 'Online, at a fixed link',
  phone: 'Phone: the invitee calls you',
  invitee_phone: 'Phone: you call the invitee',
  ask_invitee: 'Where the invitee says',
};

const SHORT_NAMES: Record<LocationKind, string> = {
  in_person: 'In person',
  link: 'Online',
  phone: 'Phone (they call)',
  invitee_phone: 'Phone (you call)',
  ask_invitee: 'Where the invitee says',
};

/** The event type's places in a few words, for its card: "In person (2), Online". */
export function placesSummary(locations: readonly EventTypeLocation[]): string {
  const counts = new Map<LocationKind, number>();
  for (const location of locations) counts.set(location.kind, (counts.get(location.kind) ?? 0) + 1);
  return [...counts].map(([kind, count]) => (count > 1 ? `${SHORT_NAMES[kind]} (${count})` : SHORT_NAMES[kind])).join(', ');
}

/** An option on the booking page, in the invitee's words: a title and what it means. */
export function optionWords(option: LocationOption, hostName: string): { title: string; detail: string } {
  switch (option.kind) {
    case 'in_person':
      return { title: 'In person', detail: option.address ?? '' };
    case 'link':
      return { title: 'Online meeting', detail: 'You get the link once booked.' };
    case 'phone':
      return { title: 'Phone call', detail: `You call ${hostName}; you get the number once booked.` };
    case 'invitee_phone':
      return { title: 'Phone call', detail: `${hostName} calls you at the number you give.` };
    default:
      return { title: 'Somewhere you choose', detail: 'Say where you would like to meet.' };
  }
}

/** The places of the booking page in one line: the one place with its address, or the kinds to choose among. */
export function placesLine(options: readonly LocationOption[], hostName: string): string {
  if (options.length === 1) {
    const words = optionWords(options[0]!, hostName);
    return options[0]!.kind === 'in_person' ? `${words.title}: ${words.detail}` : words.title;
  }
  return [...new Set(options.map((option) => optionWords(option, hostName).title))].join(' · ');
}

/** A link to open the place: the meeting's URL, or a phone number to call. */
function hrefOf(location: BookedLocation): string | undefined {
  if (!location.value) return undefined;
  if (location.kind === 'link' && location.value.startsWith('https://')) return location.value;
  if (location.kind === 'phone' || location.kind === 'invitee_phone') return `tel:${location.value.replace(/[^\d+]/g, '')}`;
  return undefined;
}

/**
 * Where a booked meeting happens, said to its reader (who calls whom): a short label, the text and a link to open
 * it. `other` is the other person's name (the invitee for the host, the host for the invitee).
 */
export function whereWords(location: BookedLocation, reader: 'host' | 'invitee', other: string): { label: string; text: string; href?: string } {
  const value = location.value ?? '';
  const href = hrefOf(location);
  const withHref = <T extends object>(words: T) => (href ? { ...words, href } : words);
  switch (location.kind) {
    case 'in_person':
      return { label: 'In person', text: value };
    case 'link':
      return withHref({ label: 'Online', text: value });
    case 'phone':
      return withHref({ label: 'Phone', text: reader === 'host' ? `${other} calls you at ${value}` : `Call ${other} at ${value}` });
    case 'invitee_phone':
      return withHref({ label: 'Phone', text: reader === 'host' ? `Call ${other} at ${value}` : `${other} calls you at ${value}` });
    case 'invitee_input':
      return { label: reader === 'host' ? 'Where the invitee said' : 'Where you said', text: value };
    default:
      return { label: location.kind.charAt(0).toUpperCase() + location.kind.slice(1).replace(/_/g, ' '), text: value };
  }
}
