import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/** Collects the service's JSON log lines. */
function logCollector(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  const lines = () =>
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { stream, lines };
}

describe('the request log', () => {
  let t: TestApp;
  const log = logCollector();

  beforeAll(async () => {
    t = await startTestApp({ env: { LOG_LEVEL: 'info' }, logStream: log.stream });
  });
  afterAll(() => t.close());

  const loggedUrls = () =>
    log
      .lines()
      .map((line) => (line.req as { url?: string } | undefined)?.url)
      .filter((url): url is string => url !== undefined);
  const secret = (name: string) => `SECRET-${name}-7f3a9c`;

  it.each([
    ['a private link key', `/book/alice/vip?key=${secret('key')}&lang=en`],
    ['an access token on the API', `/api/v2/me?access_token=${secret('access')}&limit=5`],
    ['an authorization code and state', `/oauth/authorize?code=${secret('code')}&state=st-1&client_id=oci_x`],
    ['a CSRF token on tRPC', `/trpc/session.current?csrf=${secret('csrf')}`],
    ['a refresh token and a client secret', `/oauth/token?refresh_token=${secret('refresh')}&client_secret=${secret('client')}`],
    ['a percent-encoded name and a broken value', `/api/v2/me?%6Bey=${secret('encoded')}%ZZ&Token=${secret('token')}`],
    ['a password', `/login?password=${secret('password')}&next=%2Fapp`],
  ])('never writes %s, and keeps the rest of the URL', async (_label, url) => {
    await t.http.get(url);
    expect(JSON.stringify(log.lines())).not.toContain('7f3a9c');
    const path = url.split('?')[0];
    const logged = loggedUrls().filter((entry) => entry.split('?')[0] === path);
    expect(logged.at(-1)).toContain('=[REDACTED]');
  });

  it.each([
    ['the manage page', `/book/manage/${secret('manage')}`],
    ['its calendar file', `/book/manage/${secret('manage-ics')}/event.ics`],
    ['a password reset link', `/login/reset/${secret('reset')}`],
    ['a tRPC query’s input', `/trpc/publicBooking.managed?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { json: { token: secret('input') } } }))}`],
  ])('never writes the secret path segment of %s', async (_label, url) => {
    await t.http.get(url);
    expect(JSON.stringify(log.lines())).not.toContain('7f3a9c');
    expect(loggedUrls().at(-1)).toContain('[REDACTED]');
  });

  it.each([
    ['?api_key=', (token: string) => `/api/v2/me?api_key=${token}`],
    ['?pat=', (token: string) => `/api/v2/me?pat=${token}`],
    ['?auth=', (token: string) => `/mcp?auth=Bearer%20${token}`],
    ['a path segment', (token: string) => `/api/v2/event-types/${token}`],
  ])('never writes a token of ours sent as %s, whatever the parameter is called', async (_label, urlOf) => {
    const token = `pat_${'7f3a9c'.repeat(8)}abcd`;
    await t.http.get(urlOf(token));
    expect(JSON.stringify(log.lines())).not.toContain('7f3a9c');
    expect(loggedUrls().at(-1)).toContain('pat_[REDACTED]');
  });

  it('keeps parameters that carry no secret', async () => {
    await t.http.get('/api/v2/bookings?limit=5&status=upcoming&state=st-9');
    expect(loggedUrls()).toContain('/api/v2/bookings?limit=5&status=upcoming&state=st-9');
  });
});
