/**
 * GET /availability reads the caller's event type and its calendars in one statement (availabilitySql); booking
 * pages and the bench's curve read them in two (findEventType, then calendarsSql). Both must offer the same
 * slots for every kind of event type: seats of a group, listed and unlisted team hosts, a host without a
 * schedule, an inactive event type; and refuse the same way (another user's event type, a duration it lacks),
 * outside and inside a transaction (where the statement is not prepared).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAvailability, getAvailabilityFor, findEventType } from '../../src/modules/availability/availability.service.ts';
import type { AvailabilityInput } from '../../src/modules/availability/availability.schemas.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { createBooking, createEventType, type EventTypeOptions } from '../helpers/booking-factories.ts';
import { setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';

const NOW = new Date('2026-03-01T12:00:00Z');
const WINDOW = { from: '2026-03-02T00:00:00Z', to: '2026-03-07T00:00:00Z' };

describe('availability in one statement', () => {
  let t: TestApp;
  let owner: TestUser;
  let mates: TestUser[];
  let stranger: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await createUserWithToken(t.em(), { timezone: 'America/New_York' });
    stranger = await createUserWithToken(t.em());
    mates = [];
    for (const timezone of ['Europe/Berlin', 'UTC', 'Asia/Kolkata']) mates.push(await createUserWithToken(t.em(), { timezone }));
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    await setSchedule(t.em(), mates[0]!.id, WEEKDAYS_9_TO_5);
    await setSchedule(t.em(), mates[1]!.id, { ...WEEKDAYS_9_TO_5, saturday: [{ start: '10:00', end: '12:00' }] });
    // mates[2] has no schedule row: no hours.
    await t.em().execute('delete from availability_schedule where user_id = ?', [mates[2]!.id], 'run');
  });
  afterAll(() => t.close());

  // Each event type's two bookings at their own times (a host's busy blocks may not overlap).
  let bookedHour = 9;

  async function bothWays(options: EventTypeOptions, input: Partial<AvailabilityInput> = {}, em: EntityManager = t.em()) {
    const eventType = await createEventType(t.em(), owner.id, options);
    const hour = String(bookedHour++).padStart(2, '0');
    await createBooking(t.em(), { eventType, startAt: `2026-03-02T${hour}:00:00-05:00` });
    await createBooking(t.em(), { eventType, startAt: `2026-03-03T${hour}:30:00-05:00`, hostId: options.hosts?.[0] });
    const full = { eventTypeId: eventType.id, ...WINDOW, ...input };
    const one = await getAvailability(em, owner.id, full, NOW);
    const record = await findEventType(t.em(), eventType.id, owner.id);
    const two = await getAvailabilityFor(t.em(), record!, full, NOW);
    // The owner's answer adds what it knows of the hosts' connected calendars; the slots are the same.
    expect(one.data).toEqual(two.data);
    return one.data;
  }

  it('offers what the two statements offer, for every kind', async () => {
    expect(await bothWays({ bufferAfterMin: 15 })).not.toHaveLength(0);
    // The group's booking at 10:00 New York (16:00 in Berlin) has seats left: still offered.
    expect(await bothWays({ kind: 'group', seatsPerSlot: 3 }, { tz: 'Europe/Berlin' })).toContainEqual({
      start: '2026-03-02T16:00:00+01:00',
      end: '2026-03-02T16:30:00+01:00',
    });
    const team = mates.map((mate) => mate.id);
    expect(await bothWays({ kind: 'round_robin', hosts: team, durationsMin: [30, 60] }, { duration: 60 })).not.toHaveLength(0);
    expect(await bothWays({ kind: 'collective', hosts: team.slice(0, 2) })).not.toHaveLength(0);
    expect(await bothWays({ kind: 'collective', hosts: team })).toEqual([]);
    expect(await bothWays({ kind: 'round_robin' })).not.toHaveLength(0);
    expect(await bothWays({ active: false })).toEqual([]);
  });

  it('reads the same inside a transaction, where the statement is not prepared', async () => {
    await t.em().transactional(async (tx) => {
      expect(await bothWays({ kind: 'round_robin', hosts: mates.map((mate) => mate.id) }, {}, tx)).not.toHaveLength(0);
    });
  });

  it("refuses another user's event type and a duration it does not offer", async () => {
    const foreign = await createEventType(t.em(), stranger.id);
    await expect(getAvailability(t.em(), owner.id, { eventTypeId: foreign.id, ...WINDOW }, NOW)).rejects.toMatchObject({ code: 'not_found' });
    const mine = await createEventType(t.em(), owner.id, { durationsMin: [30] });
    await expect(getAvailability(t.em(), owner.id, { eventTypeId: mine.id, ...WINDOW, duration: 45 }, NOW)).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });
});
