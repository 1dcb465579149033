import type { EntityManager } from '@mikro-orm/postgresql';
import { cancelBookingIn } from '../bookings/bookings.service.ts';
import { readSeries } from './booking-series.rows.ts';
import type { BookingSeries } from './booking-series.schemas.ts';

/** GET /booking-series/{id}: one of the owner's series with every occurrence; another user's is 404. */
export function getBookingSeries(em: EntityManager, ownerId: string, id: string): Promise<BookingSeries> {
  return readSeries(em, ownerId, id);
}

/**
 * Cancels the occurrences still to come (active or pending, not yet started), each as DELETE /bookings/{id} does it
 * (its time freed, its webhook, e-mails and calendar copies), in one transaction. The series row is locked first, so
 * two cancellations of one series serialise; occurrences already past or canceled are left as they are.
 */
export async function cancelBookingSeries(
  em: EntityManager,
  ownerId: string,
  input: { id: string; reason?: string | undefined },
  now: Date,
): Promise<BookingSeries> {
  return em.transactional(async (tx) => {
    await readSeries(tx, ownerId, input.id, { forUpdate: true });
    const upcoming = await tx.execute<{ id: string }[]>(
      `select id from booking
        where series_id = ? and owner_id = ? and status in ('active', 'pending') and start_at > ?
        order by start_at, id`,
      [input.id, ownerId, now],
    );
    for (const { id } of upcoming) await cancelBookingIn(tx, ownerId, { id, reason: input.reason }, now);
    return readSeries(tx, ownerId, input.id);
  });
}
