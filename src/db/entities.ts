import { PersonalAccessTokenEntity } from '../modules/auth/personal-access-token.entity.ts';
import { AvailabilityScheduleEntity } from '../modules/availability/availability-schedule.entity.ts';
import { BookingBusyBlockEntity, BookingEntity, BusyBlockEntity } from '../modules/bookings/booking.entity.ts';
import { ContactEntity } from '../modules/contacts/contact.entity.ts';
import { EventTypeEntity, EventTypeHostEntity } from '../modules/event-types/event-type.entity.ts';
import { LeadEntity } from '../modules/leads/lead.entity.ts';
import { UserEntity } from '../modules/users/user.entity.ts';
import { IdempotencyKeyEntity } from '../lib/idempotency-key.entity.ts';

/** Every entity the ORM knows; a domain adds its own here. */
export const entities = [
  UserEntity,
  PersonalAccessTokenEntity,
  EventTypeEntity,
  EventTypeHostEntity,
  AvailabilityScheduleEntity,
  BookingEntity,
  BusyBlockEntity,
  BookingBusyBlockEntity,
  LeadEntity,
  ContactEntity,
  IdempotencyKeyEntity,
];
