import { z } from 'zod';
import type { Context } from '../../api/context.ts';
import { sessionProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import type { Principal } from '../../identity/principal.ts';
import { UserSchema } from '../users/users.schemas.ts';
import {
  AccountDeletedSchema,
  AccountExportSchema,
  ChangeEmailInputSchema,
  ChangePasswordInputSchema,
  DeleteAccountInputSchema,
  SignedOutSchema,
  SignOutEverywhereInputSchema,
} from './account.schemas.ts';
import { type AccountCaller, changeEmail, changePassword, PasswordChecksThrottled, signOutEverywhere } from './account.service.ts';
import { deleteAccount } from './account-deletion.service.ts';
import { exportAccount } from './account-export.service.ts';

/**
 * The signed-in user's account settings, on /trpc only (no OpenAPI meta): a session is required, so no token can
 * change the sign-in address or the password, end sessions, export or delete the account. Name, time zone and slug
 * are `users.update` (PATCH /me), which the web app calls too.
 */
export const accountRouter = router({
  changeEmail: sessionProcedure
    .input(ChangeEmailInputSchema)
    .output(UserSchema)
    .mutation(({ ctx, input }) => withRetryAfter(ctx, () => changeEmail(ctx.em, callerOf(ctx, ctx.principal), input))),

  changePassword: sessionProcedure
    .input(ChangePasswordInputSchema)
    .output(SignedOutSchema)
    .mutation(({ ctx, input }) => withRetryAfter(ctx, () => changePassword(ctx.em, callerOf(ctx, ctx.principal), input))),

  signOutEverywhere: sessionProcedure
    .input(SignOutEverywhereInputSchema)
    .output(SignedOutSchema)
    .mutation(({ ctx, input }) => signOutEverywhere(ctx.em, callerOf(ctx, ctx.principal), input.keepCurrent)),

  export: sessionProcedure
    .input(z.void())
    .output(AccountExportSchema)
    .query(({ ctx }) => exportAccount(ctx.em, ctx.principal.userId, ctx.env.SITE_URL, ctx.clock.now())),

  delete: sessionProcedure
    .input(DeleteAccountInputSchema)
    .output(AccountDeletedSchema)
    .mutation(async ({ ctx, input }) => {
      await withRetryAfter(ctx, () => deleteAccount(ctx.em, callerOf(ctx, ctx.principal), input.password));
      return { deleted: true as const };
    }),
});

function callerOf(ctx: Context, principal: Principal): AccountCaller {
  return { userId: principal.userId, sessionId: principal.credential.id, ip: ctx.request.ip, now: ctx.clock.now() };
}

/** A throttled password check answers 429 with Retry-After, as sign-in does. */
async function withRetryAfter<T>(ctx: Context, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof PasswordChecksThrottled) {
      ctx.response.headers['Retry-After'] = String(error.retryAfterSec);
      ctx.response.headers['Cache-Control'] = 'no-store';
    }
    throw error;
  }
}
