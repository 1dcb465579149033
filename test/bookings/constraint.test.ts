import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createUserWithToken } from '../helpers/factories.ts';

import { createEventType } from '../helpers/booking-factories.ts';

/** The database itself forbids overlapping active busy time of one host, whatever the application does. */
describe('busy_block exclusion constraint', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('exists, with the btree_gist extension it needs installed on this server', async () => {
    const em = t.em();
    const [server] = await em.execute<{ version: number }[]>("select current_setting('server_version_num')::int as version");
    expect(server!.version).toBeGreaterThanOrEqual(150000);
    const extensions = await em.execute<{ extname: string }[]>("select extname from pg_extension where extname in ('btree_gist', 'pg_trgm') order by 1");
    expect(extensions.map((row: { extname: string }) => row.extname)).toEqual(['btree_gist', 'pg_trgm']);
    const [constraint] = await em.execute<{ contype: string; definition: string }[]>(
      `select contype, pg_get_constraintdef(oid) as definition
         from pg_constraint where conname = 'busy_block_no_overlap' and conrelid = 'busy_block'::regclass`,
    );
    expect(constraint!.contype).toBe('x');
    // It carries when a slot hold's block ends and the block's busy minutes, so availability reads both from the
    // index alone, leaving ended holds out.
    expect(constraint!.definition).toMatch(
      /EXCLUDE USING gist \(host_id WITH =, busy WITH &&\) INCLUDE \(hold_expires_at, busy_minutes\) WHERE \(\(?active\)?\)/,
    );
  });

  it('refuses an overlapping active block of the same host (23P01) and allows the rest', async () => {
    const a = await createUserWithToken(t.em());
    const b = await createUserWithToken(t.em());
    const eventType = (await createEventType(t.em(), a.id)).id;
    const insert = (host: string, from: string, to: string, active = true) =>
      t.em().execute(
        `insert into busy_block (id, host_id, event_type_id, start_at, end_at, busy, active)
         values (?, ?, ?, ?, ?, tstzrange(?, ?), ?)`,
        [newId(), host, eventType, from, to, from, to, active],
        'run',
      );
    await insert(a.id, '2026-03-02T10:00:00Z', '2026-03-02T11:00:00Z');
    await expect(insert(a.id, '2026-03-02T10:59:00Z', '2026-03-02T11:30:00Z')).rejects.toMatchObject({ code: '23P01' });
    // Back to back, another host, or an inactive (canceled) block: all fine.
    await insert(a.id, '2026-03-02T11:00:00Z', '2026-03-02T11:30:00Z');
    await insert(b.id, '2026-03-02T10:00:00Z', '2026-03-02T11:00:00Z');
    await insert(a.id, '2026-03-02T10:00:00Z', '2026-03-02T11:00:00Z', false);
  });
});
