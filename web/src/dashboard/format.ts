import type { RouterOutputs as Outputs } from '../api.ts';
import type { SessionUser } from './session.ts';

export type BookingItem = Outputs['bookings']['list']['data'][number];
export type EventTypeItem = Outputs['eventTypes']['list']['data'][number];
export type LeadItem = Outputs['leads']['list']['data'][number];
export type ScheduleData = Outputs['schedule']['get'];
export type ContactHistory = Outputs['contacts']['history'];

export function titleCase(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1).replace(/_/g, ' ');
}

export function planName(plan: SessionUser['plan']): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}
