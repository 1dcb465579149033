import { z } from 'zod';
import { publicRateLimitedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { currentSessionView } from './current-session.service.ts';
import { CurrentSessionSchema } from './current-session.schemas.ts';

/**
 * The first-party web app's current session, on /trpc only (`session.*`). The session store itself is
 * src/identity/sessions.ts; signing in and out is /login and /logout.
 */
export const sessionRouter = router({
  /**
   * Who is signed in, with the CSRF token every later cookie-authenticated call must send in
   * `x-csrf-token` (and /logout in its `csrf` field); null when not signed in. Only same-origin pages can
   * read the answer (the service grants no CORS), and it changes nothing, so it needs no CSRF token itself.
   * Rate-limited per client address, like the other unauthenticated procedures.
   */
  current: publicRateLimitedProcedure
    .input(z.void())
    .output(CurrentSessionSchema)
    .query(({ ctx }) => currentSessionView(ctx.em, ctx.request.headers, ctx.env.SITE_URL, ctx.clock.now())),
});
