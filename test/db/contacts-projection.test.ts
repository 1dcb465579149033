import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelBooking } from '../../src/modules/bookings/bookings.service.ts';
import { rebuildAllContacts } from '../../src/modules/contacts/contacts.projection.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createBooking, createEventType, createLead } from '../helpers/booking-factories.ts';
import { createUserWithToken } from '../helpers/factories.ts';

describe('contacts projection', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function snapshot(): Promise<unknown[]> {
    return t.em().execute('select * from contact order by owner_id, email_key');
  }

  it('rebuilds from scratch exactly the rows the incremental refreshes wrote', async () => {
    const day = (n: number, hour = 9) => new Date(Date.UTC(2026, 4, n, hour));
    for (const label of ['one', 'two']) {
      const user = await createUserWithToken(t.em(), { name: label });
      const group = await createEventType(t.em(), user.id, { kind: 'group' });
      const single = await createEventType(t.em(), user.id);
      // The same person under several spellings, as invitee and as lead.
      const kept = await createBooking(t.em(), {
        eventType: single,
        startAt: day(10),
        invitee: { name: 'Sam', email: `Sam.${label}@Example.test` },
        createdAt: day(1),
      });
      const toCancel = await createBooking(t.em(), {
        eventType: group,
        startAt: day(11),
        invitee: { name: 'Sam S', email: `sam.${label}@example.test` },
        createdAt: day(2),
      });
      await createBooking(t.em(), { eventType: group, startAt: day(11), noShow: true, createdAt: day(3), invitee: { email: `sam.${label}@EXAMPLE.test` } });
      await createLead(t.em(), { eventType: single, email: `SAM.${label}@example.test`, name: null, status: 'qualified', bookingId: kept.id, createdAt: day(4) });
      // Leads only, in every status; one without a name.
      for (const [i, status] of (['new', 'contacted', 'qualified', 'lost'] as const).entries()) {
        await createLead(t.em(), { eventType: single, email: `lead${i}.${label}@example.test`, status, createdAt: day(5 + i) });
        await createLead(t.em(), { eventType: group, email: `Lead${i}.${label}@example.test`, name: null, status: 'new', createdAt: day(5 + i, 12) });
      }
      // A client whose only booking is canceled, through the service (an incremental refresh).
      const gone = await createBooking(t.em(), { eventType: single, startAt: day(20), invitee: { email: `gone.${label}@example.test` }, createdAt: day(6) });
      await cancelBooking(t.em(), user.id, { id: gone.id, reason: 'no' }, day(7));
      await cancelBooking(t.em(), user.id, { id: toCancel.id }, day(8));
    }

    const incremental = await snapshot();
    expect(incremental).toHaveLength(2 * (2 + 4));

    // Spoil the projection, so that the rebuild has to recompute every row to pass.
    await t.em().execute('update contact set meetings = meetings + 5, status = ?', ['lost'], 'run');
    await t.em().execute(`delete from contact where email_key like 'sam.%'`, [], 'run');
    await t
      .em()
      .execute(
        `insert into contact (owner_id, email_key, email, kind, status, search_text)
         select owner_id, 'ghost@example.test', 'ghost@example.test', 'lead', 'new', 'ghost' from contact limit 1`,
        [],
        'run',
      );
    expect(await snapshot()).not.toEqual(incremental);

    const rebuilt = await rebuildAllContacts(t.em());
    expect(rebuilt).toBe(incremental.length);
    expect(await snapshot()).toEqual(incremental);
  });
});
