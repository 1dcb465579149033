import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectOperations } from '../../src/router/openapi-postprocess.ts';
import { appRouter } from '../../src/router/root.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { newId } from '../../src/lib/ids.ts';
import { snakeCase, toolsOf } from '../../src/mcp/tools.ts';
import { newBookingMessagesWrite } from '../../src/modules/booking-messages/message-outbox.ts';
import { runWrites } from '../../src/lib/sql-writes.ts';
import { readBooking } from '../../src/modules/bookings/booking.rows.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';
import { createBooking, createEventType, createLead, type TestEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/app.ts';
import { startListeningApp } from '../oauth/support.ts';
import { connectWithToken, errorBody, structured } from './support.ts';

// Sunday 2026-03-01 12:00 UTC; the owner works 9 to 5 in New York on weekdays.
const NOW = '2026-03-01T12:00:00Z';
const WINDOW = { from: '2026-03-02T00:00:00Z', to: '2026-03-03T00:00:00Z' };

/** The REST operations that need a scope, read from the router as the OpenAPI document is. */
const scopedOperations = () => collectOperations(appRouter).filter((operation) => operation.scope !== undefined);

describe('MCP at /mcp with a personal access token (official SDK client)', () => {
  let t: TestApp & { siteUrl: string };
  let owner: TestUser;
  let eventTypeId: string;
  let eventType: TestEventType;
  let client: Client;
  const mcpUrl = () => `${t.siteUrl}/mcp`;

  beforeAll(async () => {
    t = await startListeningApp({ clock: fixedClock(NOW) });
    owner = await createUserWithToken(t.em(), { timezone: 'America/New_York' });
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    eventType = await createEventType(t.em(), owner.id, { durationsMin: [30] });
    eventTypeId = eventType.id;
    client = await connectWithToken(mcpUrl(), owner.token);
  });
  afterAll(async () => {
    await client?.close();
    await t.close();
  });

  it('lists one tool per scoped procedure, named after its operationId, with scope, schemas and annotations', async () => {
    const { tools } = await client.listTools();
    const scoped = scopedOperations().map((operation) => snakeCase(operation.operationId));
    expect(tools.map((tool) => tool.name).sort()).toEqual(scoped.sort());
    expect(scoped).toEqual(expect.arrayContaining(['get_me', 'get_availability', 'create_booking', 'cancel_booking', 'list_bookings']));
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.title).toBeTruthy();
      expect(tool.description).toMatch(/Requires scope (read|write):[a-z-]+\.$/);
      expect(tool.annotations?.openWorldHint).toBe(false);
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('list_bookings')?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, destructiveHint: false });
    expect(byName.get('list_bookings')?.description).toContain('nextCursor');
    expect(byName.get('cancel_booking')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(byName.get('create_booking')?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    expect(byName.get('create_booking')?.description).toContain('Requires scope write:bookings.');
    expect(byName.get('create_booking')?.inputSchema.properties).toHaveProperty('invitee');
  });

  it('has a tool for every scoped procedure and a procedure for every tool (generated from the router)', () => {
    const tools = toolsOf(appRouter);
    expect(tools.map((tool) => tool.procedurePath).sort()).toEqual(scopedOperations().map((operation) => operation.procedurePath).sort());
  });

  it('answers every read tool as REST does, with the same JSON as text and structured content', async () => {
    const webhook = await t.http
      .post('/api/v2/webhooks')
      .set(...bearer(owner.token))
      .send({ url: 'https://93.184.215.14/hook', events: ['booking.created'] });
    const webhookId = webhook.body.id as string;
    const connection = await t.http
      .post('/api/v2/calendar-connections')
      .set(...bearer(owner.token))
      .send({ kind: 'ics', url: 'https://93.184.215.14/feed.ics' });
    const connectionId = connection.body.id as string;
    const booking = await createBooking(t.em(), { eventType, startAt: '2026-03-05T15:00:00Z' });
    const lead = await createLead(t.em(), { eventType });
    const message = await t.em().transactional(async (tx) => {
      const messages = await newBookingMessagesWrite(tx, await readBooking(tx, owner.id, booking.id), [], undefined, new Date());
      await runWrites(tx, messages ? [messages] : []);
      const [row] = await tx.execute<{ id: string }[]>('select id from booking_message where booking_id = ? limit 1', [booking.id]);
      return row!;
    });
    const hold = await t.http
      .post('/api/v2/slot-holds')
      .set(...bearer(owner.token))
      .send({ eventTypeId, startAt: '2026-03-04T17:00:00Z', durationMin: 30 });
    expect(hold.status).toBe(201);
    const holdId = hold.body.id as string;
    // A series of the booking, written directly (booking one would announce it to the webhook above).
    const seriesId = newId();
    await t.em().execute(
      `insert into booking_series (id, owner_id, event_type_id, host_id, frequency, repeat_interval, occurrence_count, time_zone, first_start_at)
       values (?, ?, ?, ?, 'weekly', 1, 2, 'America/New_York', '2026-03-05T15:00:00Z')`,
      [seriesId, owner.id, eventTypeId, owner.id],
    );
    await t.em().execute('update booking set series_id = ? where id = ?', [seriesId, booking.id]);
    const reads: [string, Record<string, unknown>, string][] = [
      ['get_me', {}, '/api/v2/me'],
      ['list_event_types', {}, '/api/v2/event-types'],
      ['get_availability', { eventTypeId, ...WINDOW }, `/api/v2/availability?eventTypeId=${eventTypeId}&from=${WINDOW.from}&to=${WINDOW.to}`],
      [
        'explain_availability',
        { eventTypeId, start: '2026-03-05T15:00:00Z' },
        `/api/v2/availability/explain?eventTypeId=${eventTypeId}&start=2026-03-05T15:00:00Z`,
      ],
      ['list_busy_times', WINDOW, `/api/v2/availability/busy?from=${WINDOW.from}&to=${WINDOW.to}`],
      ['list_bookings', {}, '/api/v2/bookings'],
      ['get_booking', { id: booking.id }, `/api/v2/bookings/${booking.id}`],
      ['get_booking_series', { id: seriesId }, `/api/v2/booking-series/${seriesId}`],
      ['list_booking_messages', { id: booking.id }, `/api/v2/bookings/${booking.id}/messages`],
      ['get_booking_message', { id: booking.id, messageId: message.id }, `/api/v2/bookings/${booking.id}/messages/${message.id}`],
      ['get_event_type', { id: eventTypeId }, `/api/v2/event-types/${eventTypeId}`],
      ['get_lead', { id: lead.id }, `/api/v2/leads/${lead.id}`],
      ['list_leads', {}, '/api/v2/leads'],
      ['list_contacts', {}, '/api/v2/contacts'],
      ['get_contact_history', { email: booking.inviteeEmail }, `/api/v2/contacts/${encodeURIComponent(booking.inviteeEmail)}/history`],
      ['get_schedule', {}, '/api/v2/schedule'],
      ['list_webhooks', {}, '/api/v2/webhooks'],
      ['get_webhook', { id: webhookId }, `/api/v2/webhooks/${webhookId}`],
      ['list_webhook_deliveries', { id: webhookId }, `/api/v2/webhooks/${webhookId}/deliveries`],
      ['list_calendar_connections', {}, '/api/v2/calendar-connections'],
      ['get_calendar_connection', { id: connectionId }, `/api/v2/calendar-connections/${connectionId}`],
      ['get_slot_hold', { id: holdId }, `/api/v2/slot-holds/${holdId}`],
    ];
    const { tools } = await client.listTools();
    const readTools = tools.filter((tool) => tool.annotations?.readOnlyHint).map((tool) => tool.name);
    expect(reads.map(([name]) => name).sort()).toEqual(readTools.sort());
    for (const [name, args, restPath] of reads) {
      const content = structured(await client.callTool({ name, arguments: args }));
      const rest = await t.http.get(restPath).set(...bearer(owner.token));
      expect(rest.status, restPath).toBe(200);
      expect(content, name).toEqual(rest.body);
    }
  });

  it('books a slot found with get_availability, shows it on REST, refuses the taken slot, and cancels it', async () => {
    const slots = structured(await client.callTool({ name: 'get_availability', arguments: { eventTypeId, ...WINDOW } }));
    const slot = (slots.data as { start: string }[])[0];
    expect(slot?.start).toBe('2026-03-02T14:00:00.000Z');
    const booking = structured(
      await client.callTool({
        name: 'create_booking',
        arguments: { eventTypeId, start: slot?.start, durationMin: 30, invitee: invitee() },
      }),
    );
    const listed = await t.http.get('/api/v2/bookings').set(...bearer(owner.token));
    expect(listed.body.data.map((b: { id: string }) => b.id)).toContain(booking.id);

    const taken = await client.callTool({
      name: 'create_booking',
      arguments: { eventTypeId, start: slot?.start, durationMin: 30, invitee: invitee() },
    });
    const restTaken = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(owner.token))
      .send({ eventTypeId, start: slot?.start, durationMin: 30, invitee: invitee() });
    expect(restTaken.status).toBe(409);
    expect(errorBody(taken)).toEqual(restTaken.body);

    const canceled = structured(await client.callTool({ name: 'cancel_booking', arguments: { id: booking.id, reason: 'MCP test' } }));
    expect(canceled).toMatchObject({ id: booking.id, status: 'canceled', cancelReason: 'MCP test' });
  });

  it('tells an assistant why a time is not offered', async () => {
    const booking = await createBooking(t.em(), { eventType, startAt: '2026-03-06T16:00:00Z' });
    const explained = structured(
      await client.callTool({ name: 'explain_availability', arguments: { eventTypeId, start: '2026-03-06T16:00:00Z', durationMin: 30 } }),
    );
    expect(explained).toMatchObject({ available: false, reasons: [{ kind: 'booked', hostId: owner.id, bookingId: booking.id }] });
    const early = structured(await client.callTool({ name: 'explain_availability', arguments: { eventTypeId, start: '2026-03-06T13:00:00Z' } }));
    expect(early).toMatchObject({ available: false, reasons: [{ kind: 'outside_working_hours', hostId: owner.id }] });
    const bad = errorBody(await client.callTool({ name: 'explain_availability', arguments: { eventTypeId, start: '2026-03-06T16:00:00Z', durationMin: 45 } }));
    expect(bad.details).toEqual([expect.objectContaining({ path: ['durationMin'] })]);
  });

  it('answers bad arguments and unknown ids with the REST error body as an isError result', async () => {
    const bad = errorBody(await client.callTool({ name: 'get_availability', arguments: { eventTypeId, from: 'soon' } }));
    const restBad = await t.http.get(`/api/v2/availability?eventTypeId=${eventTypeId}&from=soon`).set(...bearer(owner.token));
    expect(restBad.status).toBe(400);
    expect(bad).toEqual(restBad.body);
    expect(bad.details?.length).toBeGreaterThan(0);

    const missing = errorBody(await client.callTool({ name: 'cancel_booking', arguments: { id: 'bkg_nope' } }));
    const restMissing = await t.http.delete('/api/v2/bookings/bkg_nope').set(...bearer(owner.token)).send({});
    expect(restMissing.status).toBe(404);
    expect(missing).toEqual(restMissing.body);
  });

  it('offers prompts for common tasks that name the tools to call', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['find_time_and_book', 'review_upcoming_bookings']);
    const { tools } = await client.listTools();
    const prompt = await client.getPrompt({
      name: 'find_time_and_book',
      arguments: { invitee_name: 'Ada', invitee_email: 'ada@example.test', when: 'Monday morning' },
    });
    const text = prompt.messages[0]?.content.type === 'text' ? prompt.messages[0].content.text : '';
    for (const named of ['list_event_types', 'get_availability', 'explain_availability', 'create_booking']) {
      expect(text).toContain(named);
      expect(tools.map((tool) => tool.name)).toContain(named);
    }
    await expect(client.getPrompt({ name: 'find_time_and_book', arguments: {} })).rejects.toThrow(/invitee_name, invitee_email/);
  });

  it('answers an unknown tool with a JSON-RPC error', async () => {
    await expect(client.callTool({ name: 'drop_database', arguments: {} })).rejects.toThrow(/Unknown tool: drop_database/);
  });

  it('answers a batch of tool calls, each as it answers alone, counting each call against the budget', async () => {
    const caller = await createUserWithToken(t.em());
    const post = (body: unknown) =>
      fetch(mcpUrl(), {
        method: 'POST',
        headers: { Authorization: `Bearer ${caller.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify(body),
      });
    const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
    const before = Number((await post(call(0, 'get_me'))).headers.get('x-ratelimit-remaining'));
    const batch = await post([call(1, 'get_me'), call(2, 'list_event_types'), call(3, 'get_me')]);
    expect(batch.status).toBe(200);
    const remaining = Number(batch.headers.get('x-ratelimit-remaining'));
    expect(remaining).toBe(before - 3);
    const answers = (await batch.json()) as { id: number; result: CallToolResult }[];
    expect(answers.map((answer) => answer.id)).toEqual([1, 2, 3]);
    for (const answer of answers) expect(answer.result.isError, JSON.stringify(answer.result)).toBeFalsy();
    expect(answers[0]!.result.structuredContent).toMatchObject({ id: caller.id });
    expect(answers[2]!.result.structuredContent).toEqual(answers[0]!.result.structuredContent);
    expect(answers[1]!.result.structuredContent).toEqual({ data: [] });
    const next = await post(call(4, 'get_me'));
    expect(Number(next.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
  });

  it('answers each POST with its own caller\'s data, one after another and at once', async () => {
    const callers = await Promise.all([1, 2, 3].map(() => createUserWithToken(t.em())));
    const getMe = async (caller: TestUser) => {
      const res = await fetch(mcpUrl(), {
        method: 'POST',
        headers: { Authorization: `Bearer ${caller.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_me', arguments: {} } }),
      });
      return ((await res.json()) as { result: CallToolResult }).result.structuredContent;
    };
    for (const caller of [...callers, ...callers]) expect(await getMe(caller)).toMatchObject({ id: caller.id });
    const atOnce = await Promise.all([...callers, ...callers].map(getMe));
    expect(atOnce.map((me) => me?.id)).toEqual([...callers, ...callers].map((caller) => caller.id));
  });

  it('refuses a tool call lacking its scope with 403 and an insufficient_scope challenge', async () => {
    const reader = await createUserWithToken(t.em(), { scopes: ['read:bookings'] });
    const limited = await connectWithToken(mcpUrl(), reader.token);
    expect(structured(await limited.callTool({ name: 'list_bookings', arguments: {} }))).toHaveProperty('data');
    await expect(limited.callTool({ name: 'get_me', arguments: {} })).rejects.toMatchObject({ code: 403 });
    await limited.close();

    const res = await fetch(mcpUrl(), {
      method: 'POST',
      headers: { Authorization: `Bearer ${reader.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_me', arguments: {} } }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer realm="api", error="insufficient_scope", scope="read:profile", resource_metadata="${t.siteUrl}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(res.headers.get('x-ratelimit-limit')).toBe('600');
  });

  it('refuses a Free-plan token, no token and a bad token with 401 pointing at the /mcp resource metadata', async () => {
    const free = await createUserWithToken(t.em(), { plan: 'free' });
    await expect(connectWithToken(mcpUrl(), free.token)).rejects.toMatchObject({ code: 401 });
    const attempts: Record<string, string>[] = [{}, { Authorization: 'Bearer pat_nope' }, { Authorization: `Bearer ${free.token}` }];
    for (const headers of attempts) {
      const res = await fetch(mcpUrl(), {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(
        `resource_metadata="${t.siteUrl}/.well-known/oauth-protected-resource/mcp"`,
      );
      expect(await res.json()).toMatchObject({ title: 'Unauthorized' });
    }
  });

  it('refuses a foreign Origin with 403, accepts its own, and answers GET with 405', async () => {
    const post = (origin?: string) =>
      fetch(mcpUrl(), {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${owner.token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...(origin ? { Origin: origin } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    expect((await post('https://evil.example')).status).toBe(403);
    expect((await post(t.siteUrl)).status).toBe(200);
    const get = await fetch(mcpUrl(), { headers: { Authorization: `Bearer ${owner.token}`, Accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, OPTIONS');
  });
});
