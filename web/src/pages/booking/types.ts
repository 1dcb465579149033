import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../../../src/api/root.ts';

type Outputs = inferRouterOutputs<AppRouter>['publicBooking'];
export type EventTypeInfo = Outputs['eventType'];
export type Slot = Outputs['availability']['data'][number];
export type Booking = Outputs['book'];
