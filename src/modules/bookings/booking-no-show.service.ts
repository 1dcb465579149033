import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, notFound } from '../../lib/errors.ts';
import { toDate } from '../../lib/sql-values.ts';
import { refreshContacts } from '../contacts/contacts.projection.ts';
import { readBooking, readBookingRow } from './booking.rows.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import type { Booking } from './bookings.schemas.ts';

/**
 * Marks (or, with `noShow: false`, unmarks) the invitee of a booking the caller owns as a no-show, and
 * recomputes their contact's `noShows` in the same transaction. Setting the value it already has changes
 * nothing. Marking needs an active booking whose start has passed (409 otherwise): a meeting that was
 * canceled or has not begun cannot have been missed. Unmarking is always allowed.
 */
export async function setBookingNoShow(
  em: EntityManager,
  ownerId: string,
  input: { id: string; noShow: boolean },
  now: Date,
): Promise<Booking> {
  return em.transactional(async (tx) => {
    const locked = await readBookingRow(tx, ownerId, input.id, { forUpdate: true });
    if (!locked) throw notFound('Booking');
    if (input.noShow && !locked.no_show) {
      if (locked.status !== 'active') {
        throw new DomainError('conflict', 'This booking is canceled: its invitee cannot be marked as a no-show.');
      }
      if (toDate(locked.start_at).getTime() > now.getTime()) {
        throw new DomainError(
          'conflict',
          'This meeting has not started yet: mark a no-show once its start time has passed.',
        );
      }
    }
    if (input.noShow === locked.no_show) return readBooking(tx, ownerId, input.id);
    await tx.execute('update booking set no_show = ?, updated_at = ? where id = ?', [input.noShow, now, input.id], 'run');
    await refreshContacts(tx, ownerId, [locked.invitee_email]);
    const booking = await readBooking(tx, ownerId, input.id);
    await emitWebhookEvent(tx, ownerId, 'booking.no_show', booking, now);
    return booking;
  });
}
