import { randomBytes } from 'node:crypto';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../../src/lib/secrets.ts';
import { BEHIND_PROXY, type TestApp } from '../helpers/app.ts';
import { createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { startListeningApp } from '../oauth/support.ts';

/** The spec's budget per token and minute, which the service uses unless told otherwise. */
const TOKEN_BUDGET = 600;
const JUNK_REQUESTS = 600;
const CONCURRENCY = 8;
/** The budget's window is a minute from the first request: the whole run must fit well inside it to mean anything. */
const RUN_LIMIT_MS = 45_000;

/** Junk of every kind a flood may send: random characters, a valid checksum naming nothing, the older form. */
const junkTokens = [
  () => `pat_${encodeBase32LowerCaseNoPadding(randomBytes(37)).slice(0, 59)}`,
  () => generateToken('oat_'),
  () => `pat_${encodeBase32LowerCaseNoPadding(randomBytes(32))}`,
];

describe('a valid token on an address that floods junk tokens (loopback load)', () => {
  let t: TestApp & { siteUrl: string };
  let alice: TestUser;

  beforeAll(async () => {
    t = await startListeningApp({ env: BEHIND_PROXY });
    alice = await createUserWithToken(t.em());
  });
  afterAll(() => t.close());

  it(`keeps its full ${TOKEN_BUDGET} a minute while the same address sends ${JUNK_REQUESTS} junk tokens`, async () => {
    const address = '203.0.113.77';
    const call = async (token: string) => {
      const res = await fetch(`${t.siteUrl}/api/v2/me`, {
        headers: { Authorization: `Bearer ${token}`, 'X-Forwarded-For': address },
      });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    // Valid and junk requests interleaved, CONCURRENCY at a time.
    const plan = Array.from({ length: TOKEN_BUDGET + JUNK_REQUESTS }, (_, i) => (i % 2 === 0 ? 'valid' : 'junk'));
    const valid: number[] = [];
    const junk: number[] = [];
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < plan.length) {
          const kind = plan[next++];
          if (kind === 'valid') valid.push((await call(alice.token)).status);
          else junk.push((await call(junkTokens[next % junkTokens.length]!())).status);
        }
      }),
    );
    const over = await call(alice.token);
    const elapsed = Date.now() - started;

    expect(elapsed).toBeLessThan(RUN_LIMIT_MS);
    expect(valid.filter((status) => status === 200)).toHaveLength(TOKEN_BUDGET);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ title: 'Too Many Requests', message: expect.stringContaining(`${TOKEN_BUDGET} requests per minute`) });
    expect(new Set(junk)).toEqual(new Set([401, 429]));
    expect(junk.filter((status) => status === 429).length).toBeGreaterThanOrEqual(JUNK_REQUESTS - 30);
  }, 60_000);
});
