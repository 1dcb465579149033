import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUIDES } from '../../src/router/openapi.ts';
import type { TestApp } from '../helpers/app.ts';
import { startListeningApp } from '../oauth/support.ts';
import { eventually, type Receiver, startReceiver } from '../webhooks/support.ts';
import { type GuideRun, runGuide, shellBlocks } from './guide-runner.ts';

/**
 * The API guides run as written: every shell block not marked `<!-- norun: why -->`, in order, in one bash
 * process, against a service of this test's own (its own database, so a fresh account), with the one variable a
 * guide reads from outside (`BASE`, and the webhooks guide's `RECEIVER`) set to it. The quickstart makes the
 * account the other guides use, so it runs first.
 */
const root = path.resolve(import.meta.dirname, '../..');
const ORDER = ['quickstart', 'webhooks', 'mcp', 'oauth-apps'] as const;
const guide = (name: string) => readFileSync(path.join(root, 'docs', `${name}.md`), 'utf8');

let t: TestApp & { siteUrl: string };
let receiver: Receiver;

beforeAll(async () => {
  t = await startListeningApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

async function run(name: (typeof ORDER)[number]): Promise<string> {
  const result: GuideRun = await runGuide(shellBlocks(guide(name)), {
    cwd: root,
    env: { BASE: t.siteUrl, RECEIVER: receiver.url, DATABASE_URL: t.database.url },
    timeoutMs: 100_000,
  });
  const where = result.failed ? `docs/${name}.md:${result.failed.line} failed:\n${result.failed.code}\n---\n` : '';
  expect(result.exitCode, `${where}${result.outputs.join('\n')}`).toBe(0);
  return result.outputs.join('\n');
}

/** Each pattern is found in the output, in this order. */
function expectInOrder(output: string, patterns: RegExp[]): void {
  let rest = output;
  for (const pattern of patterns) {
    const match = pattern.exec(rest);
    expect(match, `${pattern} in:\n${rest}`).not.toBeNull();
    rest = rest.slice(match!.index + match![0].length);
  }
}

describe('the API guides, run as written against a fresh account', () => {
  it('cover every guide the service serves, each starting from BASE', () => {
    expect([...ORDER].sort()).toEqual([...GUIDES].sort());
    for (const name of ORDER) {
      const blocks = shellBlocks(guide(name));
      expect(blocks.find((block) => !block.norun)?.code, name).toMatch(/^BASE=\$\{BASE:-http:\/\/localhost:3000\}$/m);
      for (const block of blocks) if (block.norun !== undefined) expect(block.norun, `${name}:${block.line}`).not.toBe('');
    }
  });

  it('quickstart: an account, a token, an event type, a booking, paging, an error, rate limits, a safe retry, a held slot booked, a series', async () => {
    const output = await run('quickstart');
    expectInOrder(output, [
      /"email":"ines@example\.com".*"plan":"team"/,
      /\{"id":"[^"]+","email":"ines@example\.com","name":"Inês Carvalho"/,
      /"name":"Intro call"/,
      /\n\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0[12]:00\n/,
      /"status":"active"[^\n]*"name":"Rui Costa"|"name":"Rui Costa"[^\n]*"status":"active"/,
      /"nextCursor":null/,
      /"code":"invalid_cursor"/,
      /x-ratelimit-limit: 600/i,
      /HTTP\/1\.1 201[^\n]*\n(?![^\n]*idempotent-replayed)/i,
      /HTTP\/1\.1 201[^\n]*\nidempotent-replayed: true/i,
      // The held slot: until when, then booked with the hold.
      /\n\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n/,
      /"status":"active"[^\n]*"name":"Rita Sousa"|"name":"Rita Sousa"[^\n]*"status":"active"/,
      /\n8\n\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z\ncanceled\b/,
    ]);
    const bookings = await t.em().execute<{ email: string; series: boolean; status: string }[]>(
      'select invitee_email as email, series_id is not null as series, status from booking order by created_at, start_at',
    );
    expect(bookings).toEqual([
      { email: 'rui@example.com', series: false, status: 'active' },
      { email: 'ana@example.com', series: false, status: 'active' },
      { email: 'rita@example.com', series: false, status: 'active' },
      ...Array(4).fill({ email: 'rui@example.com', series: true, status: 'canceled' }),
    ]);
    expect(await t.em().execute('select id from slot_hold')).toEqual([]);
  });

  it('webhooks: a local receiver registered, tested, its delivery log with the body sent, a redelivery', async () => {
    const output = await run('webhooks');
    expectInOrder(output, [/"eventType":"ping"/, /"body":"\{\\"id\\":\\"evt_[^"]*\\",\\"type\\":\\"ping\\"/, /"status":"pending"/]);
    const pings = await eventually(() => (receiver.received.length >= 2 ? receiver.received : undefined));
    expect(new Set(pings.map((ping) => ping.headers['webhook-id'])).size).toBe(1);
  });

  it('mcp: a tool called with a personal access token', async () => {
    const output = await run('mcp');
    expect(output).toMatch(/"result":\{.*"structuredContent":\{[^}]*"email":"ines@example\.com"/);
  });

  it('oauth-apps: a client registered and the address of its sign-in', async () => {
    const output = await run('oauth-apps');
    const authorize = /^(http:\/\/\S+\/oauth\/authorize\?\S+)$/m.exec(output)?.[1];
    expect(authorize, output).toMatch(/client_id=oci_[^&]+&.*&state=[0-9a-f]{32}&code_challenge=[\w-]{43}&code_challenge_method=S256$/);
    // A signed-out browser is sent to sign in, which it would not be for an invalid request.
    const res = await fetch(authorize!, { redirect: 'manual' });
    expect(res.status, await res.text()).toBeGreaterThanOrEqual(300);
    expect(res.headers.get('location')).toMatch(/\/login\?/);
  });
});

describe('the documentation', () => {
  it('captures command output with npm run -s, so npm’s banner never lands in a variable', () => {
    const pages = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const noisy = pages.flatMap((page) =>
      [...readFileSync(path.join(root, page), 'utf8').matchAll(/\$\(npm run (?!-s |--silent )[^)]*\)/g)].map((m) => `${page}: ${m[0]}`),
    );
    expect(noisy).toEqual([]);
    expect('TOKEN=$(npm run cli -- pat create)').toMatch(/\$\(npm run (?!-s |--silent )[^)]*\)/);
  });

  it('reads shell blocks as written, indented ones too, and their norun marks', () => {
    const markdown = ['```sh', 'A=1', '```', '- item:', '', '  ```bash', '  echo "$A"', '  ```', '<!-- norun: needs a browser -->', '```sh', 'open x', '```', '```json', '{}', '```'].join('\n');
    expect(shellBlocks(markdown)).toEqual([
      { line: 1, code: 'A=1' },
      { line: 6, code: 'echo "$A"' },
      { line: 10, code: 'open x', norun: 'needs a browser' },
    ]);
  });

  it('stops a guide at its first failing command and says which block it was', async () => {
    const blocks = shellBlocks(['```sh', 'echo one', '```', '```sh', 'echo "$UNSET_IN_THE_GUIDE"', '```', '```sh', 'echo three', '```'].join('\n'));
    const result = await runGuide(blocks, { cwd: root, env: {}, timeoutMs: 10_000 });
    expect(result.exitCode).not.toBe(0);
    expect(result.failed?.line).toBe(4);
    expect(result.outputs[0]).toBe('one');
    expect(result.outputs.join('\n')).not.toContain('three');
  });
});
