/**
 * A booking's location in words, for the calendar files (LOCATION, URL), the e-mails and the calendar links. Pure,
 * shared by every module that writes a booking for people to read.
 */
import type { BookingLocation } from './booking-location.ts';

/** Who reads it: the invitee, a guest or the host (who calls whom depends on it). */
export interface LocationReader {
  audience: 'invitee' | 'guest' | 'host';
  hostName: string;
  inviteeName: string;
}

/** The one line for a calendar's LOCATION: the address, the link, the typed place, or `Phone: <number>`. */
export function locationLine(location: BookingLocation): string {
  const value = location.value ?? '';
  switch (location.kind) {
    case 'phone':
    case 'invitee_phone':
      return `Phone: ${value}`;
    default:
      return location.value ?? location.kind.replace(/_/g, ' ');
  }
}

/** The meeting's link when it happens online: the calendar's URL and the e-mail's link. */
export function meetingLink(location: BookingLocation | null): string | null {
  return location?.kind === 'link' && location.value ? location.value : null;
}

/** A sentence saying where the meeting happens to this reader, e.g. "Olivia calls you at +49 30 1234567". */
export function locationSentence(location: BookingLocation, reader: LocationReader): string {
  const value = location.value ?? '';
  const { hostName, inviteeName, audience } = reader;
  switch (location.kind) {
    case 'in_person':
      return `In person at ${value}`;
    case 'link':
      return `Online at ${value}`;
    case 'phone':
      // The invitee calls the host's number.
      if (audience === 'host') return `${inviteeName} calls you at ${value}`;
      return audience === 'invitee' ? `Call ${hostName} at ${value}` : `${inviteeName} calls ${hostName} at ${value}`;
    case 'invitee_phone':
      // The host calls the number the invitee gave.
      if (audience === 'host') return `Call ${inviteeName} at ${value}`;
      return audience === 'invitee' ? `${hostName} calls you at ${value}` : `${hostName} calls ${inviteeName} at ${value}`;
    default:
      return locationLine(location);
  }
}
