import type { RouterOutputs } from '../../api.ts';

type Outputs = RouterOutputs['publicBooking'];
export type EventTypeInfo = Outputs['eventType'];
export type Slot = Outputs['availability']['data'][number];
export type Booking = Outputs['book'];
