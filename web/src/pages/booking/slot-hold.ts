import { api } from '../../api.ts';

/** A hold the page made: only its token (kept in this page's memory) can book with it or let it go. */
export interface HeldSlot {
  id: string;
  holdToken: string;
  expiresAt: string;
}

export async function holdSlot(input: { eventTypeId: string; key: string | null; startAt: string; durationMin: number }): Promise<HeldSlot> {
  const { id, holdToken, expiresAt } = await api.publicBooking.hold.mutate(input);
  return { id, holdToken, expiresAt };
}

/** Lets a hold go, without waiting: one that has ended or was booked meanwhile is gone already. */
export function letGo(hold: HeldSlot): void {
  api.publicBooking.releaseHold.mutate({ holdId: hold.id, holdToken: hold.holdToken }).catch(() => undefined);
}
