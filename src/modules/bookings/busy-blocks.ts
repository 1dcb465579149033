import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Gives up one booking's share of its busy blocks (on cancel, decline and reschedule): each block loses a seat,
 * and a block no other active or pending booking holds stops being busy, so its time is bookable again at once.
 */
export async function releaseBusyBlocks(tx: EntityManager, bookingId: string): Promise<void> {
  // Lock the blocks before reading who is still on them: in READ COMMITTED, the next statement then sees
  // every release committed by whoever held a block before us. Id order keeps concurrent releases deadlock-free.
  await tx.execute(
    `select bb.id from busy_block bb
      where bb.id in (select busy_block_id from booking_busy_block where booking_id = ?)
      order by bb.id
      for update`,
    [bookingId],
  );
  await tx.execute(
    `update busy_block bb
        set seats_taken = greatest(bb.seats_taken - 1, 0),
            active = exists (select 1 from booking_busy_block l join booking b on b.id = l.booking_id
                              where l.busy_block_id = bb.id and b.status in ('active', 'pending') and b.id <> ?)
      where bb.id in (select busy_block_id from booking_busy_block where booking_id = ?)`,
    [bookingId, bookingId],
    'run',
  );
}
