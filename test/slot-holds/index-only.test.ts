/**
 * Leaving ended holds out costs the slot engine's busy-time read nothing: `hold_expires_at` is carried in the
 * exclusion constraint's index and in the limits' index, so both scans stay index-only (no visit to the table).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { calendarsParams, calendarsSql, findEventType } from '../../src/modules/availability/availability.service.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { createUserWithToken } from '../helpers/factories.ts';

const NOW = new Date('2026-03-01T12:00:00Z');
const DAY = 86_400_000;

describe('the busy-time read with slot holds', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('is an index-only scan of the exclusion constraint’s index, and of the limits’ index', async () => {
    const host = await createUserWithToken(t.em(), { timezone: 'UTC' });
    const eventType = await createEventType(t.em(), host.id, { limits: { perDay: 50 } });
    // Half-hour blocks over the month: bookings' blocks, and holds' blocks that ended or still hold.
    for (let i = 0; i < 300; i++) {
      const start = new Date(NOW.getTime() + i * 3_600_000);
      const end = new Date(start.getTime() + 1_800_000);
      const hold = i % 3 === 0 ? { id: newId(), expiresAt: new Date(NOW.getTime() + (i % 2 === 0 ? -60_000 : 60_000)) } : undefined;
      if (hold) {
        await t.em().execute(
          `insert into slot_hold (id, event_type_id, host_id, holder, start_at, end_at, duration_min, expires_at, created_at)
           values (?, ?, ?, 'user:test', ?, ?, 30, ?, ?)`,
          [hold.id, eventType.id, host.id, start, end, hold.expiresAt, new Date(hold.expiresAt.getTime() - 600_000)],
          'run',
        );
      }
      await t.em().execute(
        `insert into busy_block (id, host_id, event_type_id, start_at, end_at, busy, hold_id, hold_expires_at, created_at)
         values (?, ?, ?, ?, ?, tstzrange(?, ?), ?, ?, ?)`,
        [newId(), host.id, eventType.id, start, end, start, end, hold?.id ?? null, hold?.expiresAt ?? null, NOW],
        'run',
      );
    }
    await t.em().execute('vacuum analyze busy_block', [], 'run');
    const record = (await findEventType(t.em(), eventType.id))!;
    const from = NOW.getTime();
    const to = from + 31 * DAY;
    const plan = await t.em().transactional(async (tx) => {
      // Few rows: without this the planner would rather read the whole small table.
      await tx.execute('set local enable_seqscan = off', [], 'run');
      await tx.execute('set local enable_bitmapscan = off', [], 'run');
      const rows = await tx.execute<{ 'QUERY PLAN': string }[]>(`explain (costs off) ${calendarsSql(record)}`, calendarsParams(record, from, to, NOW));
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('Index Only Scan using busy_block_no_overlap on busy_block');
    expect(plan).toContain('Index Only Scan using busy_block_limit_idx on busy_block');
    expect(plan).not.toMatch(/Index Scan using busy_block/);
  });
});
