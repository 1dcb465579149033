import { type EntityManager, IsolationLevel } from '@mikro-orm/postgresql';
import { notFound } from '../../lib/errors.ts';
import { BOOKING_COLUMNS, BOOKING_FROM, type BookingRow, toBooking } from '../bookings/booking.rows.ts';
import { LEAD_COLUMNS, LEAD_FROM, type LeadRow, toLead } from '../leads/lead.rows.ts';
import { CONTACT_COLUMNS, type ContactRow, toContact } from './contact.rows.ts';
import type { ContactBooking, ContactHistory, ContactLead } from './contacts.schemas.ts';

type Counted<Row> = Row & { total: string | number };

/** What a contact's history shows of a booking (see ContactBookingSchema). */
function toContactBooking(row: BookingRow): ContactBooking {
  const { id, eventType, startAt, endAt, durationMin, status, canceledAt, canceledBy, createdAt } = toBooking(row);
  return { id, eventType, startAt, endAt, durationMin, status, noShow: row.no_show, canceledAt, canceledBy, createdAt };
}

function toContactLead(row: LeadRow): ContactLead {
  const { id, eventType, status, booked, bookingId, createdAt, completedAt } = toLead(row);
  return { id, eventType, status, booked, bookingId, createdAt, completedAt };
}

const totalOf = (rows: { total: string | number }[]) => Number(rows[0]?.total ?? 0);

/**
 * One of the owner's contacts with their latest bookings (by start time) and leads (by capture time), at most
 * `limit` of each, with how many there are in all. The address matches in any letter case, as the contact
 * merges them; an address that is no contact of the owner is 404. One read-only snapshot, so the counts agree.
 */
export async function getContactHistory(em: EntityManager, ownerId: string, email: string, limit: number): Promise<ContactHistory> {
  return em.transactional(
    async (tx) => {
      const [contact] = await tx.execute<ContactRow[]>(`select ${CONTACT_COLUMNS} from contact where owner_id = ? and email_key = lower(?)`, [
        ownerId,
        email,
      ]);
      if (!contact) throw notFound('Contact');
      const bookings = await tx.execute<Counted<BookingRow>[]>(
        `select ${BOOKING_COLUMNS}, count(*) over () as total
           from ${BOOKING_FROM}
          where b.owner_id = ? and lower(b.invitee_email) = lower(?)
          order by b.start_at desc, b.id desc
          limit ?`,
        [ownerId, email, limit],
      );
      const leads = await tx.execute<Counted<LeadRow>[]>(
        `select ${LEAD_COLUMNS}, count(*) over () as total
           from ${LEAD_FROM}
          where l.owner_id = ? and lower(l.email) = lower(?)
          order by l.created_at desc, l.id desc
          limit ?`,
        [ownerId, email, limit],
      );
      return {
        contact: toContact(contact),
        bookings: { data: bookings.map(toContactBooking), total: totalOf(bookings) },
        leads: { data: leads.map(toContactLead), total: totalOf(leads) },
      };
    },
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
  );
}
