import { scheduleRouter } from '../modules/availability/schedule.router.ts';
import { usersRouter } from '../modules/users/users.router.ts';
import { sessionRouter } from '../modules/current-session/current-session.router.ts';
import { accountRouter } from '../modules/account/account.router.ts';
import { developerSettingsRouter } from '../modules/developer-settings/developer-settings.router.ts';
import { availabilityRouter } from '../modules/availability/availability.router.ts';
import { bookingCreationRouter } from '../modules/bookings/booking-creation.router.ts';
import { bookingsRouter } from '../modules/bookings/bookings.router.ts';
import { bookingChangesRouter } from '../modules/bookings/booking-changes.router.ts';
import { bookingSeriesRouter } from '../modules/booking-series/booking-series.router.ts';
import { bookingMessagesRouter } from '../modules/booking-messages/booking-messages.router.ts';
import { publicBookingRouter } from '../modules/public-booking/public-booking.router.ts';
import { eventTypesRouter } from '../modules/event-types/event-types.router.ts';
import { leadsRouter } from '../modules/leads/leads.router.ts';
import { contactsRouter } from '../modules/contacts/contacts.router.ts';
import { webhooksRouter } from '../modules/webhooks/webhooks.router.ts';
import { calendarsRouter } from '../modules/calendars/calendars.router.ts';
import { slotHoldsRouter } from '../modules/slot-holds/slot-holds.router.ts';
import { mergeRouters, router } from '../api/trpc.ts';

/** Every procedure of the service; the same object serves /trpc and /api/v2. */
export const appRouter = router({
  availability: availabilityRouter,
  eventTypes: eventTypesRouter,
  leads: leadsRouter,
  contacts: contactsRouter,
  bookings: mergeRouters(bookingsRouter, bookingCreationRouter, bookingChangesRouter, bookingMessagesRouter),
  slotHolds: slotHoldsRouter,
  bookingSeries: bookingSeriesRouter,
  publicBooking: publicBookingRouter,
  users: usersRouter,
  session: sessionRouter,
  account: accountRouter,
  developerSettings: developerSettingsRouter,
  schedule: scheduleRouter,
  webhooks: webhooksRouter,
  calendars: calendarsRouter,
});

export type AppRouter = typeof appRouter;
