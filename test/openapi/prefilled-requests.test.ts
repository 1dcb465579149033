import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE } from '../../src/lib/examples.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';

/**
 * Every operation with query parameters, and every GET, sent as the API reference's "Try it" pre-fills it: each
 * optional parameter with its example, and the ids a user replaces with their own (path and required parameters)
 * set to the account's real ones. The account differs from the examples (a 45-minute event type only), so an
 * optional example that fits only the examples' own data is caught: none may be refused as invalid.
 */
type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
  schema?: { examples?: unknown[] };
}

let t: TestApp;
let user: TestUser;
let doc: { paths: Record<string, Record<string, Json>> };
/** Example id → the account's own resource of that kind. */
const ownIds = new Map<string, string>();

const api = (method: 'get' | 'post', path: string, body?: object) => {
  const request = t.http[method](`/api/v2${path}`).set(...bearer(user.token));
  return body ? request.send(body) : request;
};

async function created(method: 'get' | 'post', path: string, body?: object): Promise<Json> {
  const res = await api(method, path, body);
  expect(res.status, `${path}: ${res.text}`).toBeLessThan(300);
  return res.body as Json;
}

beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  user = await createUserWithToken(t.em(), { timezone: 'Europe/Berlin' });
  const eventType = await created('post', '/event-types', { name: 'Deep dive', durationsMin: [45] });
  const from = new Date().toISOString();
  const to = new Date(Date.now() + 14 * 86_400_000).toISOString();
  const slots = await created('get', `/availability?eventTypeId=${eventType.id}&from=${from}&to=${to}`);
  const [slot] = slots.data as { start: string }[];
  const invitee = { name: 'Rui Costa', email: 'rui@example.com', timezone: 'Europe/Lisbon' };
  const booking = await created('post', '/bookings', { eventTypeId: eventType.id, start: slot!.start, durationMin: 45, invitee });
  const webhook = await created('post', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['booking.created'] });
  const delivery = await created('post', `/webhooks/${webhook.id}/test`, {});
  for (const [example, own] of [
    [EXAMPLE.eventTypeId, eventType.id],
    [EXAMPLE.bookingId, booking.id],
    [EXAMPLE.webhookId, webhook.id],
    [EXAMPLE.deliveryId, delivery.id],
  ] as const) {
    ownIds.set(example, own as string);
  }
  doc = (await t.http.get('/api/docs/openapi.json')).body as typeof doc;
});
afterAll(() => t?.close());

const exampleOf = (parameter: Parameter): unknown => parameter.example ?? parameter.schema?.examples?.[0];

/**
 * The request "Try it" sends for an operation, with the caller's own ids where a user types theirs, and whether a
 * path still names an example resource the account has no counterpart of (a lead, a calendar connection).
 */
function prefilled(path: string, parameters: Parameter[]): { url: string; foreign: boolean } {
  const own = (value: unknown) => ownIds.get(String(value)) ?? String(value);
  let url = path;
  let foreign = false;
  const query = new URLSearchParams();
  for (const parameter of parameters) {
    const example = exampleOf(parameter);
    if (parameter.in === 'path') {
      url = url.replace(`{${parameter.name}}`, encodeURIComponent(own(example)));
      foreign ||= !ownIds.has(String(example));
    }
    if (parameter.in !== 'query' || example === undefined) continue;
    query.set(parameter.name, parameter.required ? own(example) : String(example));
  }
  return { url: query.size > 0 ? `${url}?${query}` : url, foreign };
}

describe('the requests the API reference pre-fills', () => {
  it('are never refused as invalid, for an account whose data differ from the examples', async () => {
    const outcomes: string[] = [];
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ method, path, parameters: (operation.parameters ?? []) as Parameter[] })),
    );
    const tried = operations
      .filter(({ method, parameters }) => method === 'get' || parameters.some((p) => p.in === 'query'))
      // Reads first: a DELETE's effect must not decide what a GET answers.
      .sort((a, b) => Number(a.method !== 'get') - Number(b.method !== 'get'));
    expect(tried.map(({ method, path }) => `${method} ${path}`)).toEqual(
      expect.arrayContaining(['get /bookings', 'get /leads', 'get /webhooks/{id}/deliveries', 'get /availability', 'delete /bookings/{id}']),
    );
    for (const { method, path, parameters } of tried) {
      const { url, foreign } = prefilled(path, parameters);
      const res = await t.http[method as 'get' | 'delete'](`/api/v2${url}`).set(...bearer(user.token));
      const acceptable = res.status < 300 || (foreign && res.status === 404);
      if (!acceptable) outcomes.push(`${method.toUpperCase()} ${url}: ${res.status} ${res.text}`);
    }
    expect(outcomes).toEqual([]);
  });

  it('would catch a cursor example (the check above can fail)', async () => {
    const res = await api('get', `/bookings?cursor=${EXAMPLE.cursor}`);
    expect(res.status).toBe(400);
    expect(res.body.details[0].code).toBe('invalid_cursor');
  });
});
