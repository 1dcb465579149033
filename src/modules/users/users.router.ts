import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { UpdateMeInputSchema, UserSchema } from './users.schemas.ts';
import { getUserProfile, updateProfile } from './users.service.ts';

export const usersRouter = router({
  me: scopedProcedure('read:profile')
    .meta({ openapi: { method: 'GET', path: '/me', operationId: 'getMe', tags: ['User'], summary: 'Get the authenticated user' } })
    .input(z.void())
    .output(UserSchema)
    .query(({ ctx }) => getUserProfile(ctx.em, ctx.principal.userId)),

  update: scopedProcedure('write:profile')
    .meta({
      errorStatuses: [409],
      openapi: {
        method: 'PATCH',
        path: '/me',
        operationId: 'updateMe',
        tags: ['User'],
        summary: 'Change the authenticated user’s profile',
        description:
          'Changes the display name, the time zone (the weekly schedule stays in local hours, so its instants move ' +
          'with the zone) or the booking pages’ slug; absent fields keep their value. After a slug change the old ' +
          'booking page addresses redirect (301) to the new ones; a slug any user has or had is 409. E-mail address ' +
          'and password change only in the web app’s account settings, never with a token.',
      },
    })
    .input(UpdateMeInputSchema)
    .output(UserSchema)
    .mutation(({ ctx, input }) => updateProfile(ctx.em, ctx.principal.userId, input, ctx.clock.now())),
});
