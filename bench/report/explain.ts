/**
 * `npm run bench -- --explain`: EXPLAIN (ANALYZE, BUFFERS) of the statements the measured endpoints run for
 * the heavy user, written from the services' own column lists so that they stay in step with them.
 */
import { sortKeySql } from '../../src/lib/keyset.ts';
import { availabilityParams, availabilitySql, calendarsParams, calendarsSql } from '../../src/modules/availability/availability.service.ts';
import { BOOKING_COLUMNS } from '../../src/modules/bookings/booking.rows.ts';
import { CONTACT_COLUMNS } from '../../src/modules/contacts/contact.rows.ts';
import { EVENT_TYPE_COLUMNS, type EventTypeRow, toEventType } from '../../src/modules/event-types/event-type.rows.ts';
import { LEAD_COLUMNS } from '../../src/modules/leads/lead.rows.ts';
import type { BenchFixture } from '../dataset/fixture.ts';
import { withClient } from '../dataset/dataset.ts';
import { numberPlaceholders } from '../../src/lib/prepared-sql.ts';
import { BOOKINGS_PAGE, DEEP_PAGES, SEARCH_TERM } from '../scenarios/scenarios.ts';

export async function explainQueries(dbUrl: string, fixture: BenchFixture): Promise<string> {
  return withClient(dbUrl, async (client) => {
    const heavy = fixture.heavy.id;
    const { rows: deep } = await client.query<{ key: string; id: string }>(
      `select ${sortKeySql('start_at')} as key, id from booking where owner_id = $1
        order by start_at desc, id desc offset $2 limit 1`,
      [heavy, DEEP_PAGES * BOOKINGS_PAGE - 1],
    );
    const { rows: counted } = await client.query<{ n: string }>('select count(*) as n from contact where owner_id = $1', [heavy]);
    const deepOffset = Math.floor((Number(counted[0]!.n) * 0.75) / 50) * 50;
    const { rows: eventTypes } = await client.query<EventTypeRow>(`select ${EVENT_TYPE_COLUMNS} from event_type et where et.id = $1`, [
      fixture.availability.eventTypeIds[0],
    ]);
    const availabilityEventType = toEventType(eventTypes[0]!);
    const bookingsSql = (after: string) => `
      select ${BOOKING_COLUMNS}, ${sortKeySql('b.start_at')} as sort_key
        from booking b join event_type et on et.id = b.event_type_id
       where b.owner_id = $1 ${after}
       order by b.start_at desc, b.id desc limit ${BOOKINGS_PAGE + 1}`;
    const contactsPage = (search: boolean, offset: number) => `
      select ${CONTACT_COLUMNS}
        from contact where owner_id = $1 ${search ? 'and search_text like lower($2)' : ''}
       order by last_activity_at desc nulls last, email_key limit 50 offset ${offset}`;
    const statements: [string, string, unknown[]][] = [
      [
        'token lookup',
        `select t.id, t.user_id, t.scopes, t.expires_at, t.revoked_at, t.last_used_at, u.plan
           from personal_access_token t join app_user u on u.id = t.user_id where t.token_hash = $1`,
        ['0'.repeat(64)],
      ],
      ['GET /bookings, first page', bookingsSql(''), [heavy]],
      [
        `GET /bookings, page ${DEEP_PAGES + 1}`,
        bookingsSql('and (b.start_at, b.id) < ($2::timestamptz, $3)'),
        [heavy, deep[0]?.key, deep[0]?.id],
      ],
      [
        'GET /leads, first page',
        `select ${LEAD_COLUMNS}, ${sortKeySql('l.created_at')} as sort_key
           from lead l join event_type et on et.id = l.event_type_id
          where l.owner_id = $1 order by l.created_at desc, l.id desc limit ${BOOKINGS_PAGE + 1}`,
        [heavy],
      ],
      ['GET /contacts: total', 'select count(*) as total from contact where owner_id = $1', [heavy]],
      ['GET /contacts: first page', contactsPage(false, 0), [heavy]],
      [`GET /contacts: offset ${deepOffset}`, contactsPage(false, deepOffset), [heavy]],
      [
        `GET /contacts?q=${SEARCH_TERM}: total`,
        'select count(*) as total from contact where owner_id = $1 and search_text like lower($2)',
        [heavy, `%${SEARCH_TERM}%`],
      ],
      [`GET /contacts?q=${SEARCH_TERM}: page`, contactsPage(true, 0), [heavy, `%${SEARCH_TERM}%`]],
      [
        'GET /availability: the event type, its hosts, schedules and busy time',
        numberPlaceholders(availabilitySql),
        availabilityParams(
          availabilityEventType.id,
          availabilityEventType.ownerId,
          Date.parse(fixture.availability.windowFrom),
          Date.parse(fixture.availability.windowTo),
          new Date(),
        ),
      ],
      [
        'booking pages: hosts, schedules and busy time of an event type already read',
        numberPlaceholders(calendarsSql(availabilityEventType)),
        calendarsParams(availabilityEventType, Date.parse(fixture.availability.windowFrom), Date.parse(fixture.availability.windowTo), new Date()),
      ],
    ];
    const out: string[] = [];
    for (const [label, sql, params] of statements) {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${sql}`, params);
      out.push(`-- ${label}`, ...rows.map((row) => row['QUERY PLAN']), '');
    }
    return out.join('\n');
  });
}
