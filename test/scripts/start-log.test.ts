import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { type ServiceProcess, startService } from '../helpers/service-process.ts';

describe('npm start', () => {
  let database: TestDatabase;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    service?.kill();
    await database?.drop();
  });

  it('names the addresses to open after the listening line: dashboard, API reference, MCP, sign-up, seed; and where e-mail goes', async () => {
    service = await startService({ DATABASE_URL: database.url, SITE_URL: 'http://scheduling.example.test' });
    await service.waitForLog((line) => String(line.msg).includes('E-mail'), 'the e-mail line');
    const lines = service.log.map((line) => String(line.msg));
    const start = lines.findIndex((line) => line.startsWith('Scheduling API listening on http://scheduling.example.test'));
    expect(lines.slice(start + 1, start + 7).map((line) => line.trim().replace(/\s+/g, ' '))).toEqual([
      'Dashboard http://scheduling.example.test/app',
      'API reference http://scheduling.example.test/api/docs',
      'MCP server (for AI assistants) http://scheduling.example.test/mcp',
      'Sign up (team plan) http://scheduling.example.test/signup',
      'Demo accounts, their logins and booking pages: npm run seed',
      'E-mail is kept, not sent (no SMTP_URL): hosts see each message in the dashboard; password reset mail: npm run -s cli -- mail list',
    ]);
    expect(lines.filter((line) => line.includes('E-mail'))).toHaveLength(1);
  }, 60_000);
});
