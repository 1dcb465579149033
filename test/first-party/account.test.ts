import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import type { TestApp } from '../helpers/app.ts';
import { createBooking, createEventType, createLead } from '../helpers/booking-factories.ts';
import { bearer } from '../helpers/factories.ts';
import { createClient, createPasswordUser, hiddenFields, mergeCookies, obtainTokens, type PasswordUser, startListeningApp } from '../oauth/support.ts';
import { failure, type SignedIn, signInClient, trpcClient } from './support.ts';

const ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', CALENDAR_ALLOW_PRIVATE_NETWORKS: 'true', CALENDAR_SYNC_INTERVAL: '1h' };
const HOUR = 3_600_000;
/** The part of a calendar feed's address that is its secret. */
const FEED_SECRET = 'private-5e8a1c3f7b9d2e4a6c0f';
/** The revocation bound of docs/decisions.md, for an instance that did not answer the change. */
const BOUND_MS = 1000;

/**
 * The account settings of the web app (`account.*`, session only) on two instances of the service sharing one
 * database: what one instance changes, the other enforces at once (sessions) or within the revocation bound (tokens).
 */
describe('account settings', () => {
  let a: TestApp & { siteUrl: string };
  let b: TestApp & { siteUrl: string };

  beforeAll(async () => {
    a = await startListeningApp({ env: ENV });
    b = await startListeningApp({ env: ENV, database: a.database });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** The same session (cookie and CSRF token) used on instance B. */
  const onB = (session: SignedIn) => trpcClient(b.siteUrl, { cookie: session.cookie, csrf: session.csrf });
  /** Whether /login takes this e-mail address and password (303 to the app). */
  const canSignIn = async (user: { email: string; password: string }) => {
    const form = await a.http.get('/login');
    const res = await a.http
      .post('/login')
      .set('Cookie', mergeCookies('', form.headers['set-cookie']))
      .type('form')
      .send({ ...hiddenFields(form.text, 'login'), email: user.email, password: user.password });
    return res.status === 303;
  };

  it('changes the e-mail address after the password; a taken one (in any letter case) is 409; the new one signs in', async () => {
    const user = await createPasswordUser(a.em());
    const other = await createPasswordUser(a.em());
    const { client } = await signInClient(a, user);

    expect(await failure(client.account.changeEmail.mutate({ email: other.email.toUpperCase(), currentPassword: user.password }))).toMatchObject({
      status: 409,
      message: expect.stringContaining('Another account'),
    });
    expect(await failure(client.account.changeEmail.mutate({ email: 'fresh@example.test', currentPassword: 'not my password' }))).toMatchObject({
      status: 400,
      message: expect.stringContaining('currentPassword'),
    });
    expect(await failure(client.account.changeEmail.mutate({ email: 'not an address', currentPassword: user.password }))).toMatchObject({
      status: 400,
      message: expect.stringContaining('email'),
    });

    const email = `renamed.${Date.now()}@example.test`;
    const changed = await client.account.changeEmail.mutate({ email: ` ${email} `, currentPassword: user.password });
    expect(changed).toMatchObject({ id: user.id, email });
    expect(await canSignIn({ email, password: user.password })).toBe(true);
    expect(await canSignIn(user)).toBe(false);
    expect((await client.session.current.query())?.user.email).toBe(email);
  });

  it('changes the password under its rule; the other sessions end at once on both instances, this one stays', async () => {
    const user = await createPasswordUser(a.em());
    const current = await signInClient(a, user);
    const other = await signInClient(a, user);
    expect((await onB(other).users.me.query()).id).toBe(user.id);

    const wrong = await failure(current.client.account.changePassword.mutate({ currentPassword: 'wrong password', newPassword: 'a brand new passphrase' }));
    expect(wrong).toMatchObject({ status: 400, message: expect.stringContaining('currentPassword') });
    for (const weak of ['password1234', 'aaaaaaaaaaaa', user.email]) {
      const refused = await failure(current.client.account.changePassword.mutate({ currentPassword: user.password, newPassword: weak }));
      expect(refused, weak).toMatchObject({ status: 400, message: expect.stringContaining('newPassword') });
    }
    expect((await failure(current.client.account.changePassword.mutate({ currentPassword: user.password, newPassword: 'short' }))).status).toBe(400);
    expect((await onB(other).users.me.query()).id).toBe(user.id);

    const newPassword = 'tangerine orbit lantern 42';
    expect(await current.client.account.changePassword.mutate({ currentPassword: user.password, newPassword })).toEqual({ signedOutSessions: 1 });
    expect((await failure(onB(other).users.me.query())).status).toBe(401);
    expect((await failure(other.client.users.me.query())).status).toBe(401);
    expect((await current.client.users.me.query()).id).toBe(user.id);
    expect(await canSignIn(user)).toBe(false);
    expect(await canSignIn({ email: user.email, password: newPassword })).toBe(true);
  });

  it('answers a password guessed too often with 429 and Retry-After, as sign-in does', async () => {
    const user = await createPasswordUser(a.em());
    const { cookie, csrf } = await signInClient(a, user);
    const attempt = (password: string) => a.http.post('/trpc/account.delete').set({ cookie, 'x-csrf-token': csrf }).send({ json: { password } });
    for (let i = 0; i < 5; i++) expect((await attempt('a wrong guess')).status).toBe(400);
    const throttled = await attempt('a wrong guess');
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    // Even the right password waits now: it is not checked while the limit holds.
    expect((await attempt(user.password)).status).toBe(429);
    expect((await trpcClient(a.siteUrl, { cookie, csrf }).users.me.query()).id).toBe(user.id);
  });

  it('signs out everywhere: other sessions are refused at once on both instances; this one too when asked', async () => {
    const user = await createPasswordUser(a.em());
    const { token } = await createPersonalAccessToken(a.em(), { userId: user.id, name: 'kept', scopes: ['read:profile'] });
    const [first, second, third] = [await signInClient(a, user), await signInClient(a, user), await signInClient(a, user)];
    const stranger = await signInClient(a, await createPasswordUser(a.em()));
    expect((await onB(second).users.me.query()).id).toBe(user.id);

    expect(await first.client.account.signOutEverywhere.mutate({ keepCurrent: true })).toEqual({ signedOutSessions: 2 });
    expect((await failure(onB(second).users.me.query())).status).toBe(401);
    expect((await failure(third.client.users.me.query())).status).toBe(401);
    expect((await first.client.users.me.query()).id).toBe(user.id);
    expect((await onB(stranger).users.me.query()).email).not.toBe(user.email);
    // Tokens are not sessions: they stay, managed in the developer settings.
    expect((await b.http.get('/api/v2/me').set(...bearer(token))).status).toBe(200);

    expect(await first.client.account.signOutEverywhere.mutate({ keepCurrent: false })).toEqual({ signedOutSessions: 1 });
    expect((await failure(first.client.users.me.query())).status).toBe(401);
    expect((await failure(onB(first).users.me.query())).status).toBe(401);
  });

  it('refuses API tokens on every account procedure (403): no token changes the sign-in, exports or deletes', async () => {
    const user = await createPasswordUser(a.em());
    const { token } = await createPersonalAccessToken(a.em(), { userId: user.id, name: 'all', scopes: ALL_SCOPES });
    const client = trpcClient(a.siteUrl, { bearer: token });
    const calls = [
      () => client.account.changeEmail.mutate({ email: 'x@example.test', currentPassword: user.password }),
      () => client.account.changePassword.mutate({ currentPassword: user.password, newPassword: 'tangerine orbit lantern 42' }),
      () => client.account.signOutEverywhere.mutate({ keepCurrent: false }),
      () => client.account.export.query(),
      () => client.account.delete.mutate({ password: user.password }),
    ];
    for (const call of calls) expect((await failure(call())).status).toBe(403);
    expect((await a.http.get('/api/v2/me').set(...bearer(token))).body.email).toBe(user.email);
  });

  it("exports the account's data as JSON, without secrets and without anyone else's", async () => {
    const { user, session, token, data } = await accountWithData(a, 'export');
    const stranger = await accountWithData(a, 'stranger');
    const oldSlug = (await a.http.get('/api/v2/me').set(...bearer(token))).body.slug;
    const slug = `exported-${Date.now().toString(36)}`;
    expect((await a.http.patch('/api/v2/me').set(...bearer(token)).send({ slug })).status).toBe(200);

    const exported = await session.client.account.export.query();
    expect(exported.user).toEqual({
      id: user.id,
      email: user.email,
      name: user.name,
      slug,
      timezone: user.timezone,
      plan: 'team',
      createdAt: expect.any(String),
      previousSlugs: [oldSlug],
    });
    expect(exported.eventTypes.map((eventType) => eventType.id)).toEqual([data.eventTypeId]);
    expect(exported.eventTypes[0]?.url).toContain(`/book/${slug}/`);
    expect(exported.bookings.map((booking) => booking.id)).toEqual(data.bookingIds);
    expect(exported.leads.map((lead) => lead.id)).toEqual([data.leadId]);
    expect(exported.contacts.map((contact) => contact.email).sort()).toEqual([...data.inviteeEmails, data.leadEmail].sort());
    expect(exported.schedule.timezone).toBe(user.timezone);
    expect(exported.schedule.weekly.monday).toEqual([{ start: '09:00', end: '17:00' }]);
    expect(exported.webhookEndpoints).toEqual([expect.objectContaining({ id: data.webhookId, url: 'http://127.0.0.1:9/hook', events: ['booking.created'] })]);
    expect(exported.calendarConnections).toEqual([expect.objectContaining({ id: data.calendarId, url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:9\/…/) })]);

    const text = JSON.stringify(exported);
    for (const secret of [data.webhookSecret, FEED_SECRET, token, 'whsec_', 'pat_', '$argon2', session.csrf, 'ses_']) expect(text).not.toContain(secret);
    for (const theirs of [stranger.user.id, stranger.user.email, stranger.data.eventTypeId, ...stranger.data.bookingIds]) expect(text).not.toContain(theirs);
  });

  it('deletes the account after the password: its data is gone and its tokens and sessions are refused on both instances', async () => {
    const { user, session, token, data } = await accountWithData(a, 'leaving');
    const stay = await accountWithData(a, 'staying');
    const otherSession = await signInClient(a, user);
    const app = await createClient(a.em(), user.id);
    const oauth = await obtainTokens(a.http, session.cookie, app, { scope: 'read:profile' });
    const [pat] = await a.em().execute<{ id: string }[]>('select id from personal_access_token where user_id = ?', [user.id]);
    await a.em().execute(
      `insert into idempotency_key (principal, key, request_hash, response_status, response_body) values (?, 'k1', 'h', 201, '{}'), (?, 'k2', 'h', 201, '{}')`,
      [`pat:${pat?.id}`, `pat:${stay.patId}`],
      'run',
    );
    // B has the token in its cache (its second call is answered from it).
    for (let i = 0; i < 2; i++) expect((await b.http.get('/api/v2/me').set(...bearer(token))).status).toBe(200);

    const wrong = await failure(session.client.account.delete.mutate({ password: 'not it' }));
    expect(wrong).toMatchObject({ status: 400, message: expect.stringContaining('password') });
    expect(await rowsOf(a, user.id)).toMatchObject({ app_user: 1, booking: data.bookingIds.length });

    expect(await session.client.account.delete.mutate({ password: user.password })).toEqual({ deleted: true });
    expect((await a.http.get('/api/v2/me').set(...bearer(token))).status).toBe(401);
    expect((await a.http.get('/api/v2/me').set(...bearer(oauth.access_token))).status).toBe(401);
    expect((await failure(onB(otherSession).users.me.query())).status).toBe(401);
    expect((await failure(session.client.users.me.query())).status).toBe(401);
    expect(await refusedOnBWithin(token)).toBeLessThan(BOUND_MS);
    expect(await canSignIn(user)).toBe(false);

    expect(Object.values(await rowsOf(a, user.id)).every((count) => count === 0), JSON.stringify(await rowsOf(a, user.id))).toBe(true);
    const [keys] = await a.em().execute<{ count: string }[]>(`select count(*) from idempotency_key where principal like 'pat:%' and principal in (?, ?)`, [
      `pat:${pat?.id}`,
      `pat:${stay.patId}`,
    ]);
    expect(Number(keys?.count)).toBe(1);
    // The other account is untouched.
    const theirs = await a.http.get('/api/v2/bookings').set(...bearer(stay.token));
    expect(theirs.body.data.map((booking: { id: string }) => booking.id).sort()).toEqual([...stay.data.bookingIds].sort());
    expect((await stay.session.client.account.export.query()).webhookEndpoints).toHaveLength(1);
  });

  it("refuses while the account hosts upcoming bookings of another account's event type (409); past ones go and the owner's contacts follow", async () => {
    const owner = await createPasswordUser(a.em());
    const host = await createPasswordUser(a.em());
    const team = await createEventType(a.em(), owner.id, { kind: 'round_robin', hosts: [owner.id, host.id] });
    const upcoming = await createBooking(a.em(), { eventType: team, hostId: host.id, startAt: new Date(Date.now() + 48 * HOUR) });
    const past = await createBooking(a.em(), { eventType: team, hostId: host.id, startAt: new Date(Date.now() - 48 * HOUR) });
    const ownersOwn = await createBooking(a.em(), { eventType: team, hostId: owner.id, startAt: new Date(Date.now() - 72 * HOUR) });
    const { client } = await signInClient(a, host);

    expect(await failure(client.account.delete.mutate({ password: host.password }))).toMatchObject({
      status: 409,
      message: expect.stringContaining('1 upcoming booking'),
    });
    await a.em().execute("update booking set status = 'canceled', canceled_at = now() where id = ?", [upcoming.id], 'run');
    expect(await client.account.delete.mutate({ password: host.password })).toEqual({ deleted: true });

    const bookings = await a.em().execute<{ id: string }[]>('select id from booking where owner_id = ? order by id', [owner.id]);
    expect(bookings.map((row) => row.id)).toEqual([ownersOwn.id]);
    const contacts = await a.em().execute<{ email_key: string }[]>('select email_key from contact where owner_id = ?', [owner.id]);
    expect(contacts.map((row) => row.email_key)).toEqual([ownersOwn.inviteeEmail.toLowerCase()]);
    expect(contacts.map((row) => row.email_key)).not.toContain(past.inviteeEmail.toLowerCase());
  });

  /** Polls B with the token until it answers 401; the milliseconds that took. */
  async function refusedOnBWithin(token: string): Promise<number> {
    const started = performance.now();
    for (;;) {
      const res = await b.http.get('/api/v2/me').set(...bearer(token));
      const elapsed = performance.now() - started;
      if (res.status === 401) return elapsed;
      if (elapsed > BOUND_MS) throw new Error(`B still accepted the token after ${Math.round(elapsed)} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
});

/** A signed-in user with a token and some of everything: an event type, bookings, a lead, a webhook, a calendar. */
async function accountWithData(t: TestApp & { siteUrl: string }, label: string) {
  const user: PasswordUser = await createPasswordUser(t.em(), { name: `Ada ${label}` });
  const { id: patId, token } = await createPersonalAccessToken(t.em(), { userId: user.id, name: label, scopes: ALL_SCOPES });
  const session = await signInClient(t, user);
  const eventType = await createEventType(t.em(), user.id);
  const bookings = [
    await createBooking(t.em(), { eventType, startAt: new Date(Date.now() - 24 * HOUR) }),
    await createBooking(t.em(), { eventType, startAt: new Date(Date.now() + 24 * HOUR) }),
  ];
  const lead = await createLead(t.em(), { eventType });
  const webhook = await t.http.post('/api/v2/webhooks').set(...bearer(token)).send({ url: 'http://127.0.0.1:9/hook', events: ['booking.created'] });
  expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
  const calendar = await t.http
    .post('/api/v2/calendar-connections')
    .set(...bearer(token))
    .send({ kind: 'ics', url: `http://127.0.0.1:9/feeds/${FEED_SECRET}.ics`, name: 'Work' });
  expect(calendar.status, JSON.stringify(calendar.body)).toBe(201);
  return {
    user,
    patId,
    token,
    session,
    data: {
      eventTypeId: eventType.id,
      bookingIds: bookings.map((booking) => booking.id),
      inviteeEmails: bookings.map((booking) => booking.inviteeEmail),
      leadId: lead.id,
      leadEmail: lead.email,
      webhookId: webhook.body.id as string,
      webhookSecret: webhook.body.secret as string,
      calendarId: calendar.body.id as string,
    },
  };
}

/** How many rows of each table of the user's there are. */
async function rowsOf(t: TestApp, userId: string): Promise<Record<string, number>> {
  const counts = {
    app_user: 'app_user where id = ?',
    user_slug: 'user_slug where user_id = ?',
    personal_access_token: 'personal_access_token where user_id = ?',
    oauth_grant: 'oauth_grant where user_id = ?',
    oauth_client: 'oauth_client where owner_user_id = ?',
    user_session: 'user_session where user_id = ?',
    event_type: 'event_type where owner_id = ?',
    booking: 'booking where owner_id = ? or host_id = ?',
    busy_block: 'busy_block where host_id = ?',
    lead: 'lead where owner_id = ?',
    contact: 'contact where owner_id = ?',
    availability_schedule: 'availability_schedule where user_id = ?',
    webhook_endpoint: 'webhook_endpoint where owner_id = ?',
    webhook_event: 'webhook_event where owner_id = ?',
    calendar_connection: 'calendar_connection where owner_id = ?',
    calendar_busy: 'calendar_busy where host_id = ?',
    calendar_busy_day: 'calendar_busy_day where host_id = ?',
    login_known_client: 'login_known_client where user_id = ?',
  };
  const sql = `select ${Object.entries(counts).map(([name, from]) => `(select count(*) from ${from}) as ${name}`).join(', ')}`;
  const params = Object.values(counts).flatMap((from) => Array(from.split('?').length - 1).fill(userId));
  const [row] = await t.em().execute<Record<string, string>[]>(sql, params);
  return Object.fromEntries(Object.entries(row ?? {}).map(([table, count]) => [table, Number(count)]));
}
