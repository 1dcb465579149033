import type { RouterOutputs } from '../../api.ts';

type Outputs = RouterOutputs['publicBooking'];
export type EventTypeInfo = Outputs['eventType'];
export type Slot = Outputs['availability']['data'][number];
export type Booking = Outputs['book'];
export type BookedSeries = Outputs['bookSeries'];
/** What opens a secret event type to the public procedures: its private link key, or (rescheduling) a manage token. */
export type EventTypeAccess = { key: string | null } | { manageToken: string };
