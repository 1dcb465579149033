import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';
import { createBooking, createEventType, createLead } from '../helpers/booking-factories.ts';
import { createUserWithToken, type TestUser } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/app.ts';
import { startListeningApp } from '../oauth/support.ts';

const NOW = '2026-03-01T12:00:00Z';
const WINDOW = { from: '2026-03-02T00:00:00Z', to: '2026-03-04T00:00:00Z' };

/**
 * A lone tools/call is answered without the SDK's Server (src/mcp/tool-call.ts); the same call in a batch of one
 * goes through the SDK (whose stateless transport answers it as the one response, not as an array). Both must answer
 * the same bytes.
 */
describe('MCP: a lone tools/call answers what the SDK answers, byte for byte', () => {
  let t: TestApp & { siteUrl: string };
  let owner: TestUser;
  let eventTypeId: string;

  const post = async (body: unknown) => {
    const res = await fetch(`${t.siteUrl}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${owner.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });
    return { status: res.status, contentType: res.headers.get('content-type'), length: res.headers.get('content-length'), text: await res.text() };
  };

  beforeAll(async () => {
    t = await startListeningApp({ clock: fixedClock(NOW), apiRateLimitPerMinute: 1000 });
    owner = await createUserWithToken(t.em(), { timezone: 'America/New_York', name: 'Zoë "Q" O\'Brien \\ ☃' });
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    const eventType = await createEventType(t.em(), owner.id, { durationsMin: [30] });
    eventTypeId = eventType.id;
    await createBooking(t.em(), { eventType, startAt: '2026-03-02T15:00:00Z', invitee: { name: 'Ünïcode "Guest"' } });
    await createLead(t.em(), { eventType, name: 'Lead \u2028 with a line separator' });
  });
  afterAll(() => t.close());

  it.each([
    ['a plain object', 1, 'get_me', {}],
    ['an id that looks like the answer', '"structuredContent":0,"id":"\\"', 'list_event_types', {}],
    ['slots', 3, 'get_availability', () => ({ eventTypeId, ...WINDOW })],
    ['a page of bookings', 4, 'list_bookings', {}],
    ['a page of leads', 5, 'list_leads', {}],
    ['a domain error', 6, 'get_event_type', { id: '0190aaaa-0000-7000-8000-000000000000' }],
    ['a validation error', 7, 'get_availability', { eventTypeId: 'not-an-id' }],
  ])('%s', async (_case, id, name, args) => {
    const message = { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: typeof args === 'function' ? args() : args } };
    const connect = vi.spyOn(Server.prototype, 'connect');
    try {
      const lone = await post(message);
      expect(connect).not.toHaveBeenCalled();
      const batch = await post([message]);
      expect(connect).toHaveBeenCalledTimes(1);
      expect([lone.status, batch.status]).toEqual([200, 200]);
      expect(lone.contentType).toBe('application/json');
      expect(Number(lone.length)).toBe(Buffer.byteLength(lone.text));
      // The SDK's transport answers a batch of one as the one response.
      expect(lone.text).toBe(batch.text);
    } finally {
      connect.mockRestore();
    }
  });
});
