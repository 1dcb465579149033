import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';
import { dateTimeQueryParam } from '../../lib/query-params.ts';
import { checkWindow, MAX_WINDOW_DAYS } from './availability.schemas.ts';

export const BusyTimesInputSchema = z
  .object({
    from: dateTimeQueryParam('Start of the window.', EXAMPLE.from),
    to: dateTimeQueryParam(`End of the window, after \`from\` and at most ${MAX_WINDOW_DAYS} days later.`, EXAMPLE.to),
  })
  .superRefine(checkWindow);

export type BusyTimesInput = z.infer<typeof BusyTimesInputSchema>;

const start = z.iso.datetime({ offset: true }).meta({ description: 'Start (UTC).', examples: [EXAMPLE.start] });
const end = z.iso.datetime({ offset: true }).meta({ description: 'End (UTC).', examples: [EXAMPLE.end] });

export const BusyTimeSchema = z
  .discriminatedUnion('source', [
    z
      .object({
        source: z.literal('booking').meta({ description: 'Where the busy time comes from.', examples: ['booking'] }),
        start,
        end,
        bookingIds: z.array(z.string()).meta({
          description: 'Its active bookings that are yours (empty when the time is booked through another user’s event type).',
          examples: [[EXAMPLE.bookingId]],
        }),
      })
      .meta({ description: 'A meeting booked with you (its buffers are not included).' }),
    z
      .object({
        source: z.literal('hold').meta({ description: 'Where the busy time comes from.', examples: ['hold'] }),
        start,
        end,
      })
      .meta({ description: 'A slot someone holds while they finish booking it (a slot hold), until the hold ends; whose is not shown.' }),
    z
      .object({
        source: z.literal('calendar').meta({ description: 'Where the busy time comes from.', examples: ['calendar'] }),
        start,
        end,
        connectionId: z.string().meta({ description: 'The calendar connection.', examples: [EXAMPLE.calendarConnectionId] }),
        connectionName: z.string().meta({ description: 'Its name.', examples: ['Work calendar'] }),
      })
      .meta({ description: 'Busy in one of your connected calendars marked busy, as last synced (never an event’s details).' }),
  ])
  .meta({ id: 'BusyTime', description: 'A stretch of your time that slots avoid; `source` says where it comes from.' });

export type BusyTime = z.infer<typeof BusyTimeSchema>;

export const BusyTimesOutputSchema = z.object({
  data: z.array(BusyTimeSchema).meta({ description: 'Busy times overlapping the window, ordered by start.' }),
});

export type BusyTimesOutput = z.infer<typeof BusyTimesOutputSchema>;
