/**
 * What the bench measures: each unit of work (e.g. "GET /bookings, a deep cursor page, heavy user") on up to
 * four surfaces: the hand-written baseline server, /api/v2 (REST), /trpc and /mcp (a stateless `tools/call`). Each is probed with one request
 * first; a route that does not exist yet (404 "No route …", or no procedure for it in the router) is skipped
 * with a note instead of failing the run.
 */
import type { BenchFixture } from '../dataset/fixture.ts';
import { CALENDAR_SIZES, type CalendarScenario, calendarEventTypeId } from '../dataset/calendars.ts';
import { RULES, rulesEventTypeId, type RulesScenario } from '../dataset/rules.ts';
import { type TeamKind, teamEventTypeId } from '../dataset/teams.ts';

export type Surface = 'baseline' | 'rest' | 'trpc' | 'mcp';
export const SURFACES: Surface[] = ['baseline', 'rest', 'trpc', 'mcp'];

type Input = Record<string, string | number>;

/** One HTTP request shape; `body` is called once per request, so that each POST can book its own slot. */
export interface Target {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: () => string;
  /** The status a successful answer has. */
  expectStatus: number;
}

export interface Work {
  key: string;
  label: string;
  method: 'GET' | 'POST';
  /** The REST path under /api/v2 (and the baseline's path), which also finds the tRPC procedure. */
  path: string;
  user: 'heavy' | 'availability' | 'booker';
  hasBaseline: boolean;
}

/** Teams of the sizes, each host with its own schedule and this many bookings in the 31 days. */
const TEAM_SCENARIO_BOOKINGS = 100;
const TEAM_SCENARIOS: { key: string; kind: TeamKind; hosts: number }[] = [
  { key: 'availability.rr10', kind: 'round_robin', hosts: 10 },
  { key: 'availability.rr50', kind: 'round_robin', hosts: 50 },
  { key: 'availability.collective10', kind: 'collective', hosts: 10 },
  { key: 'availability.collective50', kind: 'collective', hosts: 50 },
];

/**
 * One host with connected calendars against the same host without (bench/dataset/calendars.ts): `booked` has the
 * same busy time as its own bookings, so the same slots; `bare` has none. All round robin of one host, owned by
 * the availability user.
 */
const CALENDAR_SCENARIOS: { key: string; scenario: CalendarScenario; label: string }[] = [
  { key: 'calendars.bare', scenario: 'bare', label: 'GET /availability, 31 days, one host without calendars or bookings' },
  {
    key: 'calendars.booked',
    scenario: 'booked',
    label: `GET /availability, 31 days, one host without calendars, ${CALENDAR_SIZES.busyIntervals.toLocaleString('en-US')} bookings`,
  },
  {
    key: 'calendars.busy',
    scenario: 'busy',
    label: `GET /availability, 31 days, the same host with ${CALENDAR_SIZES.connections} calendars × ${CALENDAR_SIZES.busyIntervals.toLocaleString('en-US')} busy intervals`,
  },
  {
    key: 'calendars.rr50',
    scenario: 'team',
    label: `GET /availability, round robin, ${CALENDAR_SIZES.teamHosts} hosts × ${CALENDAR_SIZES.teamConnections} calendars × ${CALENDAR_SIZES.teamBusyIntervals} busy intervals`,
  },
];

/**
 * One host with a booking window and limits against the same host and bookings without either
 * (bench/dataset/rules.ts): a round robin of one, owned by the availability user, whose slot holds count for both.
 */
const RULES_SCENARIOS: { key: string; scenario: RulesScenario; label: string }[] = [
  {
    key: 'rules.availability',
    scenario: 'limited',
    label: `GET /availability, 31 days, a ${RULES.windowDays}-day window, limits per day, week and month, 500 bookings, 40 holds`,
  },
  { key: 'rules.none', scenario: 'none', label: 'GET /availability, 31 days, the same host, bookings and holds without window or limits' },
];

export const WORKS: Work[] = [
  { key: 'me', label: 'GET /me', method: 'GET', path: '/me', user: 'heavy', hasBaseline: true },
  { key: 'event-types', label: 'GET /event-types', method: 'GET', path: '/event-types', user: 'heavy', hasBaseline: true },
  {
    key: 'bookings.first',
    label: 'GET /bookings?limit=100, first page',
    method: 'GET',
    path: '/bookings',
    user: 'heavy',
    hasBaseline: true,
  },
  {
    key: 'bookings.deep',
    label: 'GET /bookings?limit=100, deep cursor page',
    method: 'GET',
    path: '/bookings',
    user: 'heavy',
    hasBaseline: true,
  },
  { key: 'leads', label: 'GET /leads?limit=100', method: 'GET', path: '/leads', user: 'heavy', hasBaseline: true },
  { key: 'contacts.first', label: 'GET /contacts, first page', method: 'GET', path: '/contacts', user: 'heavy', hasBaseline: true },
  { key: 'contacts.deep', label: 'GET /contacts, deep offset', method: 'GET', path: '/contacts', user: 'heavy', hasBaseline: true },
  { key: 'contacts.search', label: 'GET /contacts?q=smith', method: 'GET', path: '/contacts', user: 'heavy', hasBaseline: true },
  {
    key: 'availability',
    label: 'GET /availability, 31 days, 500 bookings',
    method: 'GET',
    path: '/availability',
    user: 'availability',
    hasBaseline: true,
  },
  ...TEAM_SCENARIOS.map(
    ({ key, kind, hosts }): Work => ({
      key,
      label: `GET /availability, ${kind === 'round_robin' ? 'round robin' : 'collective'}, ${hosts} hosts × ${TEAM_SCENARIO_BOOKINGS} bookings`,
      method: 'GET',
      path: '/availability',
      user: 'availability',
      hasBaseline: true,
    }),
  ),
  ...CALENDAR_SCENARIOS.map(
    ({ key, label }): Work => ({ key, label, method: 'GET', path: '/availability', user: 'availability', hasBaseline: true }),
  ),
  ...RULES_SCENARIOS.map(
    ({ key, label }): Work => ({ key, label, method: 'GET', path: '/availability', user: 'availability', hasBaseline: true }),
  ),
  { key: 'bookings.create', label: 'POST /bookings', method: 'POST', path: '/bookings', user: 'booker', hasBaseline: true },
];

export const BOOKINGS_PAGE = 100;
/** How far the deep cursor page lies: after this many pages of 100 (30,000 of the heavy user's 50,000). */
export const DEEP_PAGES = 300;
export const SEARCH_TERM = 'smith';

/** What the inputs depend on, found out once the servers run. */
export interface Prepared {
  fixture: BenchFixture;
  /** The cursor after DEEP_PAGES pages, as each server issues it (REST and tRPC share the service's). */
  deepCursor: { app?: string; baseline?: string };
  contactsDeepOffset: number;
  /**
   * Hands out distinct slots of the booker's 15-minute grid, one per POST: one sequence for every surface of a
   * run, so the baseline's bookings and the service's never share a slot (no wipe between surfaces is needed);
   * resetBooker (bench/dataset/dataset.ts) wipes them all when the next run starts.
   */
  nextBooking: () => CreateBookingBody;
}

export interface CreateBookingBody {
  eventTypeId: string;
  start: string;
  durationMin: number;
  invitee: { name: string; email: string; timezone: string };
}

export function createBookingSource(fixture: BenchFixture): Prepared['nextBooking'] {
  const first = Date.parse(fixture.booker.firstStart);
  const step = fixture.booker.durationMin * 60_000;
  let sequence = 0;
  return () => {
    const i = sequence++;
    return {
      eventTypeId: fixture.booker.eventTypeIds[0]!,
      start: new Date(first + i * step).toISOString(),
      durationMin: fixture.booker.durationMin,
      invitee: { name: `Bench Invitee ${i}`, email: `bench.invitee.${i}@example.com`, timezone: 'UTC' },
    };
  };
}

/**
 * Slots of the booker far beyond the ones createBookingSource hands out (from `firstDay` days after its first), `perDay`
 * a day evenly spread: for bookings whose limits per day, week and month must never be reached.
 */
export function spreadBookingSource(fixture: BenchFixture, firstDay: number, perDay: number): (eventTypeId: string) => CreateBookingBody {
  const first = Date.parse(fixture.booker.firstStart) + firstDay * 86_400_000;
  const step = Math.floor(86_400_000 / perDay / 60_000) * 60_000;
  let sequence = 0;
  return (eventTypeId) => {
    const i = sequence++;
    return {
      eventTypeId,
      start: new Date(first + Math.floor(i / perDay) * 86_400_000 + (i % perDay) * step).toISOString(),
      durationMin: fixture.booker.durationMin,
      invitee: { name: `Bench Invitee ${i}`, email: `bench.spread.${i}@example.com`, timezone: 'UTC' },
    };
  };
}

/** POST /api/v2/bookings as the booker, a body per request. */
export function restBookingTarget(fixture: BenchFixture, body: () => CreateBookingBody): Target {
  return {
    method: 'POST',
    path: '/api/v2/bookings',
    headers: { authorization: `Bearer ${fixture.booker.token}`, 'content-type': 'application/json' },
    expectStatus: 201,
    body: () => JSON.stringify(body()),
  };
}

/** The query (GET) or the body (POST) of a unit of work; undefined when it cannot run (no deep cursor). */
export function inputFor(work: Work, surface: Surface, prepared: Prepared): Input | undefined {
  const { fixture } = prepared;
  switch (work.key) {
    case 'bookings.first':
    case 'leads':
      return { limit: BOOKINGS_PAGE };
    case 'bookings.deep': {
      const cursor = surface === 'baseline' ? prepared.deepCursor.baseline : prepared.deepCursor.app;
      return cursor ? { limit: BOOKINGS_PAGE, cursor } : undefined;
    }
    case 'contacts.deep':
      return { offset: prepared.contactsDeepOffset };
    case 'contacts.search':
      return { q: SEARCH_TERM };
    case 'availability':
      return {
        eventTypeId: fixture.availability.eventTypeIds[0]!,
        from: fixture.availability.windowFrom,
        to: fixture.availability.windowTo,
      };
    default: {
      const rules = RULES_SCENARIOS.find((scenario) => scenario.key === work.key);
      if (rules) {
        return {
          eventTypeId: rulesEventTypeId(rules.scenario),
          from: fixture.availability.windowFrom,
          to: fixture.availability.windowTo,
        };
      }
      const calendars = CALENDAR_SCENARIOS.find((scenario) => scenario.key === work.key);
      if (calendars) {
        return {
          eventTypeId: calendarEventTypeId(calendars.scenario),
          from: fixture.availability.windowFrom,
          to: fixture.availability.windowTo,
        };
      }
      const team = TEAM_SCENARIOS.find((scenario) => scenario.key === work.key);
      if (!team) return {};
      return {
        eventTypeId: teamEventTypeId(team.kind, team.hosts, TEAM_SCENARIO_BOOKINGS),
        from: fixture.availability.windowFrom,
        to: fixture.availability.windowTo,
      };
    }
  }
}

export function tokenFor(work: Work, fixture: BenchFixture): string {
  return fixture[work.user].token;
}

const queryString = (input: Input) => {
  const entries = Object.entries(input);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}`;
};

/**
 * The request for one unit of work on one surface. `trpc.path` is the procedure's dotted path; `acceptsVoid`
 * tells whether its input is void (then no `input` parameter is sent); `trpc.tool` is its MCP tool's name.
 */
export function targetFor(
  work: Work,
  surface: Surface,
  prepared: Prepared,
  trpc?: { path: string; acceptsVoid: boolean; tool: string },
): Target | undefined {
  const headers: Record<string, string> = { authorization: `Bearer ${tokenFor(work, prepared.fixture)}` };
  if (surface === 'mcp') return trpc ? mcpTarget(work, prepared, trpc.tool, headers) : undefined;
  if (work.method === 'POST') {
    headers['content-type'] = 'application/json';
    if (surface === 'baseline') {
      return { method: 'POST', path: work.path, headers, expectStatus: 201, body: () => JSON.stringify(prepared.nextBooking()) };
    }
    if (surface === 'rest') {
      return { method: 'POST', path: `/api/v2${work.path}`, headers, expectStatus: 201, body: () => JSON.stringify(prepared.nextBooking()) };
    }
    if (surface === 'trpc' && trpc) {
      return {
        method: 'POST',
        path: `/trpc/${trpc.path}`,
        headers,
        expectStatus: 200,
        body: () => JSON.stringify({ json: prepared.nextBooking() }),
      };
    }
    return undefined;
  }
  const input = inputFor(work, surface, prepared);
  if (!input) return undefined;
  if (surface === 'baseline') return { method: 'GET', path: `${work.path}${queryString(input)}`, headers, expectStatus: 200 };
  if (surface === 'rest') return { method: 'GET', path: `/api/v2${work.path}${queryString(input)}`, headers, expectStatus: 200 };
  if (!trpc) return undefined;
  const empty = Object.keys(input).length === 0;
  const param = empty && trpc.acceptsVoid ? '' : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
  return { method: 'GET', path: `/trpc/${trpc.path}${param}`, headers, expectStatus: 200 };
}

/** A stateless MCP `tools/call` (no initialize first: any instance answers any request) with the same arguments. */
function mcpTarget(work: Work, prepared: Prepared, tool: string, headers: Record<string, string>): Target | undefined {
  const input = work.method === 'POST' ? undefined : inputFor(work, 'mcp', prepared);
  if (work.method === 'GET' && !input) return undefined;
  return {
    method: 'POST',
    path: '/mcp',
    headers: {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    expectStatus: 200,
    body: () =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: tool, arguments: input ?? prepared.nextBooking() },
      }),
  };
}

/** The tRPC path of the procedure that serves `method path` on /api/v2, read from the router itself. */
export interface RouterProcedure {
  path: string;
  method: string;
  restPath: string;
  acceptsVoid: boolean;
  /** Its MCP tool's name (the operationId in snake_case). */
  tool: string;
}

interface ProcedureLike {
  _def: {
    meta?: { openapi?: { method: string; path: string; operationId: string } };
    inputs: { safeParse?: (v: unknown) => { success: boolean } }[];
  };
}

export async function readRouter(): Promise<RouterProcedure[]> {
  const { appRouter } = await import('../../src/router/root.ts');
  const { snakeCase } = await import('../../src/mcp/tools.ts');
  const procedures = (appRouter._def as unknown as { procedures: Record<string, ProcedureLike> }).procedures;
  return Object.entries(procedures).flatMap(([path, procedure]) => {
    const openapi = procedure._def.meta?.openapi;
    if (!openapi) return [];
    const parser = procedure._def.inputs[0];
    return [
      {
        path,
        method: openapi.method.toUpperCase(),
        restPath: openapi.path,
        acceptsVoid: parser?.safeParse ? parser.safeParse(undefined).success : true,
        tool: snakeCase(openapi.operationId),
      },
    ];
  });
}
