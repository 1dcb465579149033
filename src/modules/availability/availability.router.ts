import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { AvailabilityInputSchema, AvailabilityOutputSchema, MAX_WINDOW_DAYS } from './availability.schemas.ts';
import { getAvailability } from './availability.service.ts';
import { ExplainInputSchema, ExplainOutputSchema } from './availability-explain.schemas.ts';
import { explainAvailability } from './availability-explain.service.ts';
import { BusyTimesInputSchema, BusyTimesOutputSchema } from './busy-times.schemas.ts';
import { listBusyTimes } from './busy-times.service.ts';

export const availabilityRouter = router({
  get: scopedProcedure('read:availability')
    .meta({
      openapi: {
        method: 'GET',
        path: '/availability',
        operationId: 'getAvailability',
        tags: ['Availability'],
        summary: 'Compute bookable slots for an event type',
        description:
          `Slots of one of the caller's event types in a window of at most ${MAX_WINDOW_DAYS} days, ordered by start. ` +
          "They follow the hosts' weekly hours and date overrides in each host's own time zone (correct across " +
          'daylight-saving changes), start at the start of each availability interval and every slot interval ' +
          '(default: the duration) after it, end inside the interval, start no earlier than now plus the minimum ' +
          "notice, and keep the event type's buffers clear of existing bookings and their buffers. Slots start at or " +
          'after `from` and end at or before `to`. Every slot returned here is accepted by POST /bookings until ' +
          'someone else books it. An inactive event type has no slots.',
      },
    })
    .input(AvailabilityInputSchema)
    .output(AvailabilityOutputSchema)
    .query(({ ctx, input }) => getAvailability(ctx.em, ctx.principal.userId, input, ctx.clock.now())),
  explain: scopedProcedure('read:availability')
    .meta({
      openapi: {
        method: 'GET',
        path: '/availability/explain',
        operationId: 'explainAvailability',
        tags: ['Availability'],
        summary: 'Explain whether a slot is offered',
        description:
          'Whether one slot of one of your event types can be booked now (`available` is true exactly when GET ' +
          '/availability offers it) and, when not, every reason: each names its rule (`kind`) and, for a team, the ' +
          'host it concerns. Round robin needs one free host, collective every host; `hosts` gives each verdict. ' +
          'Bookings are named only when they are yours.',
      },
    })
    .input(ExplainInputSchema)
    .output(ExplainOutputSchema)
    .query(({ ctx, input }) => explainAvailability(ctx.em, ctx.principal.userId, input, ctx.clock.now())),
  busy: scopedProcedure('read:availability')
    .meta({
      openapi: {
        method: 'GET',
        path: '/availability/busy',
        operationId: 'listBusyTimes',
        tags: ['Availability'],
        summary: 'List your busy times',
        description:
          `Your own busy time in a window of at most ${MAX_WINDOW_DAYS} days, as slots avoid it: meetings booked with ` +
          'you (`source: "booking"`), slots held for someone finishing a booking (`source: "hold"`, until the hold ends) and the stored busy times of your connected calendars marked busy (`source: ' +
          '"calendar"`, merged per connection, clipped to the window, as of their last sync). Ordered by start.',
      },
    })
    .input(BusyTimesInputSchema)
    .output(BusyTimesOutputSchema)
    .query(({ ctx, input }) => listBusyTimes(ctx.em, ctx.principal.userId, input, ctx.clock.now())),
});
