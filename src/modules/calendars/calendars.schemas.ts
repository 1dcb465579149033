import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';

export const ConnectionStatusSchema = z.enum(['pending', 'ok', 'error']).meta({
  id: 'CalendarConnectionStatus',
  description: '`pending` until the first sync ends, then `ok` or `error` (the last sync failed; its busy times from the last good one still count).',
  examples: ['ok'],
});

export const ConnectedCalendarSchema = z
  .object({
    id: z.string().meta({ description: 'The calendar’s id.', examples: [EXAMPLE.connectedCalendarId] }),
    name: z.string().meta({ description: 'Its name.', examples: ['Work'] }),
    busy: z.boolean().meta({ description: 'Whether its events count as busy time for availability and booking.', examples: [true] }),
    bookingTarget: z
      .boolean()
      .meta({ description: 'Whether bookings are written to it (never for an iCalendar feed, which is read-only).', examples: [false] }),
  })
  .meta({ id: 'ConnectedCalendar' });

export const CalendarConnectionSchema = z
  .object({
    id: z.string().meta({ description: 'The connection’s id.', examples: [EXAMPLE.calendarConnectionId] }),
    kind: z.enum(['ics', 'caldav']).meta({ description: '`ics`: an iCalendar feed (read-only). `caldav`: a CalDAV account.', examples: ['ics'] }),
    name: z.string().meta({ description: 'A name for the owner.', examples: ['Work calendar'] }),
    url: z.string().meta({
      description:
        "A feed's address with its path masked (the full address is a secret, shown to nobody after creation); a CalDAV account's server, scheme and host only.",
      examples: ['https://calendar.google.com/….ics'],
    }),
    status: ConnectionStatusSchema,
    lastSyncedAt: z.iso.datetime().nullable().meta({ description: 'When the last successful sync ended; null before the first.', examples: [EXAMPLE.createdAt] }),
    lastError: z.string().nullable().meta({ description: 'Why the last sync failed, when it did; null otherwise.', examples: [null] }),
    calendars: z
      .array(ConnectedCalendarSchema)
      .meta({ description: "Its calendars: a feed has exactly one; a CalDAV account's are discovered by its first sync, each busy at first." }),
    bookingEvents: z
      .object({
        pending: z.int().meta({ description: 'Bookings whose event is queued or being retried.', examples: [0] }),
        failed: z.int().meta({ description: 'Bookings whose event was given up after the last retry.', examples: [0] }),
        lastError: z.string().nullable().meta({ description: 'The latest failure of a write, when one failed; null otherwise.', examples: [null] }),
      })
      .nullable()
      .meta({ description: "For a CalDAV account: the writing of bookings to its calendar that receives them; null for a feed." }),
    createdAt: z.iso.datetime().meta({ description: 'When the connection was made.', examples: [EXAMPLE.createdAt] }),
  })
  .meta({ id: 'CalendarConnection' });
export type CalendarConnection = z.infer<typeof CalendarConnectionSchema>;
export type ConnectionStatus = z.infer<typeof ConnectionStatusSchema>;

const NameSchema = z.string().trim().min(1).max(200).meta({ description: 'A name for yourself, at most 200 characters.', examples: ['Work calendar'] });

/**
 * One object for both kinds (the REST door needs an object body): `url` belongs to a feed, `serverUrl`,
 * `username` and `password` to a CalDAV account; the service names the field a kind is missing.
 */
export const CreateConnectionInputSchema = z.strictObject({
  kind: z.enum(['ics', 'caldav']).meta({ description: '`ics`: an iCalendar feed. `caldav`: a CalDAV account (iCloud, Fastmail, Nextcloud, Radicale…).', examples: ['ics'] }),
  url: z
    .string()
    .max(2000)
    .optional()
    .meta({
      description:
        "For `ics`: the feed's secret address (`https://` or `webcal://`, on a public host): Google's secret address in iCal format, an Outlook published calendar, an iCloud, Fastmail or Nextcloud link.",
      examples: ['https://calendar.google.com/calendar/ical/someone%40example.com/private-0123456789abcdef/basic.ics'],
    }),
  serverUrl: z
    .string()
    .max(2000)
    .optional()
    .meta({ description: 'For `caldav`: the server (`https://`, on a public host); its calendars are discovered from there.', examples: ['https://caldav.example.com/'] }),
  username: z.string().max(500).optional().meta({ description: 'For `caldav`: the account name.', examples: ['someone@example.com'] }),
  password: z
    .string()
    .max(500)
    .optional()
    .meta({ description: 'For `caldav`: an app password. Stored encrypted, never shown again.', examples: ['app-password'] }),
  name: NameSchema.optional(),
});
export type CreateConnectionInput = z.infer<typeof CreateConnectionInputSchema>;

export const UpdateConnectionInputSchema = z.strictObject({
  id: z.string().min(1).max(100).meta({ description: 'The connection.', examples: [EXAMPLE.calendarConnectionId] }),
  name: NameSchema.optional(),
  calendars: z
    .array(
      z.strictObject({
        id: z.string().min(1).max(100).meta({ description: 'One of its calendars.', examples: [EXAMPLE.connectedCalendarId] }),
        busy: z.boolean().optional().meta({ description: 'Whether its events count as busy time.', examples: [true] }),
        bookingTarget: z.boolean().optional().meta({ description: 'Whether bookings are written to it (at most one across your connections).', examples: [false] }),
      }),
    )
    .max(100)
    .optional()
    .meta({ description: 'Changes to its calendars; calendars not listed keep their settings.' }),
});
export type UpdateConnectionInput = z.infer<typeof UpdateConnectionInputSchema>;

export const HostCalendarsSchema = z
  .object({
    hostId: z.string().meta({ description: 'The host.', examples: [EXAMPLE.userId] }),
    connections: z
      .array(
        z.object({
          id: z.string().meta({ description: 'The connection.', examples: [EXAMPLE.calendarConnectionId] }),
          status: ConnectionStatusSchema,
          lastSyncedAt: z.iso.datetime().nullable().meta({ description: 'When its busy times were last read.', examples: [EXAMPLE.createdAt] }),
        }),
      )
      .meta({ description: "The host's connected calendars, whose stored busy times these slots exclude." }),
  })
  .meta({ id: 'HostCalendars' });
export type HostCalendars = z.infer<typeof HostCalendarsSchema>;
