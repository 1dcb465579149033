import { defineEntity, MikroORM, p } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormConfig } from '../../mikro-orm.config.ts';
import { entities } from '../../src/db/entities.ts';
import { entityDrift } from '../../src/db/entity-drift.ts';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import type { Columns } from '../../src/lib/table-columns.ts';
import { BOOKING_ROW_COLUMNS, BOOKING_WRITE_ONLY_COLUMNS } from '../../src/modules/bookings/booking.rows.ts';
import { CONTACT_ROW_COLUMNS, CONTACT_WRITE_ONLY_COLUMNS } from '../../src/modules/contacts/contact.rows.ts';
import { CONNECTION_ROW_COLUMNS } from '../../src/modules/calendars/calendar.rows.ts';
import { LEAD_ROW_COLUMNS } from '../../src/modules/leads/lead.rows.ts';
import { MESSAGE_ROW_COLUMNS, MESSAGE_WRITE_ONLY_COLUMNS } from '../../src/modules/booking-messages/booking-message.rows.ts';
import { SLOT_HOLD_ROW_COLUMNS, SLOT_HOLD_WRITE_ONLY_COLUMNS } from '../../src/modules/slot-holds/slot-hold.rows.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts';

describe('entities and migrations', () => {
  let database: TestDatabase;
  let orm: Orm;

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await initOrm(database.url, { poolMax: 1 });
  });
  afterAll(async () => {
    await orm.close();
    await database.drop();
  });

  it('every remaining entity matches its migrated table, and tables without an entity are left alone', async () => {
    expect(await entityDrift(orm)).toEqual([]);
  });

  it.each<[string, Columns]>([
    ['booking', { ...BOOKING_ROW_COLUMNS, ...BOOKING_WRITE_ONLY_COLUMNS }],
    ['lead', LEAD_ROW_COLUMNS],
    ['contact', { ...CONTACT_ROW_COLUMNS, ...CONTACT_WRITE_ONLY_COLUMNS }],
    ['calendar_connection', CONNECTION_ROW_COLUMNS],
    ['booking_message', { ...MESSAGE_ROW_COLUMNS, ...MESSAGE_WRITE_ONLY_COLUMNS }],
    ['slot_hold', { ...SLOT_HOLD_ROW_COLUMNS, ...SLOT_HOLD_WRITE_ONLY_COLUMNS }],
  ])('every column the code describes for %s (a table without an entity) is one the migrations made', async (table, columns) => {
    const own = Object.entries(columns)
      .filter(([, { from }]) => from === undefined)
      .map(([name]) => name);
    const rows = await orm.em.getConnection().execute<{ column_name: string }[]>(
      'select column_name from information_schema.columns where table_schema = current_schema() and table_name = ?',
      [table],
    );
    const migrated = new Set(rows.map((row) => row.column_name));
    expect(own.filter((name) => !migrated.has(name))).toEqual([]);
  });

  it('notices an entity that changes a column type or adds a property no migration created', async () => {
    const changed = defineEntity({
      name: 'LoginAttempt',
      tableName: 'login_attempt',
      properties: {
        id: p.text().primary(),
        emailKey: p.text(),
        ip: p.integer(),
        attemptedAt: p.datetime(),
        userAgent: p.text().nullable(),
      },
    });
    const others = entities.filter((entity) => entity.meta.tableName !== 'login_attempt');
    const drifted = await MikroORM.init({ ...ormConfig(database.url, { poolMax: 1 }), entities: [...others, changed] });
    try {
      expect(await entityDrift(drifted)).toEqual([
        'alter table "login_attempt" add "user_agent" text null',
        'alter table "login_attempt" alter column "ip" type int using ("ip"::int)',
      ]);
    } finally {
      await drifted.close();
    }
  });
});
