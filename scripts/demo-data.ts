import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { createPersonalAccessToken } from '../src/identity/personal-access-tokens.ts';
import { ALL_SCOPES } from '../src/identity/scopes.ts';
import type { Plan } from '../src/identity/user.entity.ts';
import { getAvailability } from '../src/modules/availability/availability.service.ts';
import { createBooking } from '../src/modules/bookings/booking-creation.service.ts';
import type { Booking } from '../src/modules/bookings/bookings.schemas.ts';
import { cancelBooking } from '../src/modules/bookings/bookings.service.ts';
import { refreshContacts } from '../src/modules/contacts/contacts.projection.ts';
import { CreateEventTypeInputSchema } from '../src/modules/event-types/event-type-input.schemas.ts';
import { createEventType } from '../src/modules/event-types/event-types.service.ts';
import { captureLead } from '../src/modules/leads/lead-capture.service.ts';
import type { LeadStatus } from '../src/modules/leads/leads.schemas.ts';
import { createUser, slugify } from '../src/modules/users/users.service.ts';

const DAY = 86_400_000;

export interface SeedDocument {
  users: SeedUser[];
}

interface SeedUser {
  id: string;
  email: string;
  password: string;
  plan: Plan;
  timezone: string;
  pat: string;
  eventTypes: { id: string; slug: string; name: string; active: boolean; durationsMin: number[] }[];
}

/** A POST /event-types body, with the fields the seed document lists required. */
type EventTypeSeed = z.input<typeof CreateEventTypeInputSchema> & { slug: string; active: boolean };

const TEAM_EVENT_TYPES: EventTypeSeed[] = [
  {
    name: 'Intro call',
    slug: 'intro-call',
    kind: 'one_on_one',
    durationsMin: [30, 60],
    active: true,
    bufferAfterMin: 10,
    description: 'A first conversation: what you need, and whether we are a fit.',
    locations: [{ kind: 'link', url: 'https://meet.example.com/intro' }],
  },
  {
    name: 'Group workshop',
    slug: 'group-workshop',
    kind: 'group',
    durationsMin: [60],
    active: true,
    seatsPerSlot: 5,
    locations: [{ kind: 'in_person', address: 'Studio 3, 12 Harbour Street' }],
  },
  { name: 'Legacy consultation', slug: 'legacy-consultation', kind: 'one_on_one', durationsMin: [45], active: false },
];

/**
 * A fresh demo data set (new unique e-mails on every run) through the same services the API uses, so every
 * booking has its busy blocks and every contact its projection row. Bookings in the past are made with the
 * clock set back, exactly as if they had been booked then.
 */
export async function seedDemoData(em: EntityManager, now: Date): Promise<SeedDocument> {
  const run = randomBytes(4).toString('hex');
  const users: SeedUser[] = [];
  users.push(await seedTeamUser(em, { run, handle: 'ava', name: 'Ava Morgan', timezone: 'America/New_York', now }));
  users.push(await seedTeamUser(em, { run, handle: 'jonas', name: 'Jonas Weber', timezone: 'Europe/Berlin', now }));
  users.push(await seedPlainUser(em, { run, handle: 'priya', name: 'Priya Raman', plan: 'pro', timezone: 'Asia/Kolkata' }));
  users.push(await seedPlainUser(em, { run, handle: 'sam', name: 'Sam Okafor', plan: 'free', timezone: 'Africa/Lagos' }));
  return { users };
}

async function seedPlainUser(
  em: EntityManager,
  options: { run: string; handle: string; name: string; plan: Plan; timezone: string },
): Promise<SeedUser> {
  const password = randomPassword();
  const email = `${options.handle}.${options.run}@example.com`;
  const user = await createUser(em, { email, name: options.name, plan: options.plan, timezone: options.timezone, password });
  const { token } = await createPersonalAccessToken(em, { userId: user.id, name: 'seed', scopes: ALL_SCOPES });
  return { id: user.id, email, password, plan: options.plan, timezone: options.timezone, pat: token, eventTypes: [] };
}

async function seedTeamUser(
  em: EntityManager,
  options: { run: string; handle: string; name: string; timezone: string; now: Date },
): Promise<SeedUser> {
  const seeded = await seedPlainUser(em, { ...options, plan: 'team' });
  for (const seed of TEAM_EVENT_TYPES) {
    // The document lists ids and slugs, not URLs, so the site's address plays no part here.
    const { id } = await createEventType(em, seeded.id, CreateEventTypeInputSchema.parse(seed), options.now, '');
    seeded.eventTypes.push({ id, slug: seed.slug, name: seed.name, active: seed.active, durationsMin: seed.durationsMin });
  }
  const [intro, workshop] = seeded.eventTypes as [SeedUser['eventTypes'][number], SeedUser['eventTypes'][number]];
  const inbox = (person: string) => `${slugify(person.split(' ')[0]!)}.${options.handle}.${options.run}@example.org`;

  // Leads in every pipeline status; Dana's lead is later converted by a booking under a differently cased e-mail.
  const leadStatuses: [string, LeadStatus][] = [
    ['Dana Lee', 'qualified'],
    ['Omar Haddad', 'new'],
    ['Mia Svensson', 'contacted'],
    ['Kenji Watanabe', 'lost'],
  ];
  for (const [person, status] of leadStatuses) {
    await captureLead(em, { id: intro.id, ownerId: seeded.id }, { name: person, email: inbox(person), timezone: 'Europe/London' }, options.now);
    await setLeadStatus(em, seeded.id, intro.id, inbox(person), status);
  }

  const past = new Date(options.now.getTime() - 21 * DAY);
  const pastBookings = await bookSlots(em, seeded.id, intro.id, past, 3, ['Lucía Fernández', 'Noah Becker', 'Lucía Fernández'], inbox);
  const futureBookings = await bookSlots(em, seeded.id, intro.id, options.now, 3, ['Noah Becker', 'Mia Svensson', 'Dana Lee'], (person) =>
    person === 'Dana Lee' ? inbox(person).toUpperCase() : inbox(person),
  );
  await bookSlots(em, seeded.id, workshop.id, options.now, 1, ['Kenji Watanabe'], inbox);

  await cancelBooking(em, seeded.id, { id: pastBookings[2]!.id, reason: 'Invitee had a conflict' }, options.now);
  await cancelBooking(em, seeded.id, { id: futureBookings[1]!.id, reason: 'Rescheduling later' }, options.now);
  return seeded;
}

/** Books the first free slots after `at` (one per weekday), as if booked at that moment. */
async function bookSlots(
  em: EntityManager,
  ownerId: string,
  eventTypeId: string,
  at: Date,
  count: number,
  people: string[],
  emailOf: (person: string) => string,
): Promise<Booking[]> {
  const window = { eventTypeId, from: new Date(at.getTime() + DAY).toISOString(), to: new Date(at.getTime() + 15 * DAY).toISOString() };
  const { data: slots } = await getAvailability(em, ownerId, window, at);
  const oneADay = slots.filter((slot, i) => i === 0 || slot.start.slice(0, 10) !== slots[i - 1]!.start.slice(0, 10));
  const bookings: Booking[] = [];
  for (let i = 0; i < count && i < oneADay.length; i++) {
    const person = people[i % people.length]!;
    const { booking } = await createBooking(
      em,
      {
        eventTypeId,
        start: oneADay[i]!.start,
        durationMin: Math.round((Date.parse(oneADay[i]!.end) - Date.parse(oneADay[i]!.start)) / 60_000),
        invitee: { name: person, email: emailOf(person), timezone: 'Europe/London' },
        notes: 'Booked by the demo seed',
      },
      { caller: { kind: 'owner', userId: ownerId }, now: at },
    );
    bookings.push(booking);
  }
  return bookings;
}

async function setLeadStatus(em: EntityManager, ownerId: string, eventTypeId: string, email: string, status: LeadStatus): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.execute('update lead set status = ? where owner_id = ? and event_type_id = ? and lower(email) = lower(?)', [status, ownerId, eventTypeId, email], 'run');
    await refreshContacts(tx, ownerId, [email]);
  });
}

function randomPassword(): string {
  return `demo-${randomBytes(9).toString('base64url')}`;
}
