import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

/** The layering messages ESLint reports for one import written at `filePath`. */
async function layeringProblems(filePath: string, specifier: string): Promise<string[]> {
  const code = `import * as imported from '${specifier}';\nexport const used = imported;\n`;
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layering lint (eslint.config.js)', () => {
  it.each([
    ['src/lib/new.ts', '../identity/scopes.ts'],
    ['src/config/new.ts', '../lib/clock.ts'],
    ['src/identity/new.ts', '../oauth/tokens.ts'],
    ['src/identity/new.ts', '../api/context.ts'],
    ['src/identity/new.ts', '../modules/users/users.service.ts'],
    ['src/oauth/new.ts', '../api/context.ts'],
    ['src/oauth/new.ts', '../http/health.ts'],
    ['src/oauth/new.ts', '../modules/users/users.service.ts'],
    ['src/modules/bookings/new.service.ts', '../../oauth/grants.ts'],
    ['src/modules/bookings/new.service.ts', '../../api/procedures.ts'],
    ['src/modules/bookings/new.service.ts', '../users/users.router.ts'],
    ['src/modules/developer-settings/new.service.ts', '../../api/trpc.ts'],
    ['src/modules/users/new.router.ts', '../../router/root.ts'],
    ['src/modules/users/new.router.ts', '../../http/health.ts'],
    ['src/modules/bookings/new.service.ts', '../../http/rest/rest-mount.ts'],
    ['src/modules/bookings/new.service.ts', '../../mcp/server.ts'],
    ['src/api/new.ts', '../modules/users/users.router.ts'],
    ['src/api/new.ts', '../router/root.ts'],
    ['src/api/new.ts', '../oauth/tokens.ts'],
    ['src/api/new.ts', '../modules/bookings/idempotency.ts'],
    ['src/router/root.ts', '../http/rest/rest-mount.ts'],
    ['src/http/new.ts', '../oauth/routes.ts'],
    ['src/http/new.ts', '../modules/users/users.service.ts'],
    ['src/http/new.ts', '../app.ts'],
    ['src/http/new.ts', './rest/rest-mount.ts'],
    ['src/http/rest/new.ts', '../trpc/trpc-door.ts'],
    ['src/http/rest/new.ts', '../../mcp/server.ts'],
    ['src/http/trpc/new.ts', '../rest/rest-dispatch.ts'],
    ['src/http/trpc/new.ts', '../../mcp/tools.ts'],
    ['src/mcp/new.ts', '../http/rest/rest-mount.ts'],
    ['src/http/rest/new.ts', '../../api/procedures.ts'],
    ['src/http/trpc/new.ts', '../../api/trpc.ts'],
    ['src/mcp/new.ts', '../api/context.ts'],
    ['src/db/new.ts', '../modules/bookings/bookings.service.ts'],
  ])('%s may not import %s (a higher layer)', async (filePath, specifier) => {
    expect(await layeringProblems(filePath, specifier)).toHaveLength(1);
  });

  it.each([
    ['src/lib/new.ts', '../config/env.ts'],
    ['src/identity/new.ts', '../lib/secrets.ts'],
    ['src/oauth/new.ts', '../identity/scopes.ts'],
    ['src/modules/bookings/new.service.ts', '../users/users.service.ts'],
    ['src/modules/bookings/new.service.ts', '../../identity/principal.ts'],
    ['src/modules/developer-settings/new.service.ts', '../../oauth/grants.ts'],
    ['src/modules/users/new.router.ts', '../../api/procedures.ts'],
    ['src/api/new.ts', '../lib/idempotency-key.ts'],
    ['src/router/root.ts', '../modules/users/users.router.ts'],
    ['src/router/root.ts', '../api/trpc.ts'],
    ['src/http/new.ts', '../router/root.ts'],
    ['src/http/rest/new.ts', '../../api/call.ts'],
    ['src/http/rest/new.ts', '../input-guard.ts'],
    ['src/http/trpc/new.ts', '../../router/root.ts'],
    ['src/mcp/new.ts', '../api/call.ts'],
    ['src/db/new.ts', '../modules/bookings/booking.entity.ts'],
    ['src/app.ts', './oauth/routes.ts'],
  ])('%s may import %s', async (filePath, specifier) => {
    expect(await layeringProblems(filePath, specifier)).toEqual([]);
  });

  it.each([
    ['web/src/new.ts', "import { appRouter } from '../../src/router/root.ts';\nexport const used = appRouter;\n", 1],
    ['web/src/new.ts', "import { clock } from '../../src/lib/clock.ts';\nexport const used = clock;\n", 1],
    ['web/src/new.ts', "import type { Clock } from '../../src/lib/clock.ts';\nexport type Used = Clock;\n", 1],
    ['web/src/new.ts', "import type { AppRouter } from '../../src/router/root.ts';\nexport type Used = AppRouter;\n", 0],
  ])('%s: %s is refused %i time(s) (web/ imports only the router types)', async (filePath, code, problems) => {
    const [result] = await eslint.lintText(code, { filePath });
    const restricted = (result?.messages ?? []).filter((m) => m.ruleId?.endsWith('no-restricted-imports'));
    expect(restricted).toHaveLength(problems);
  });
});
