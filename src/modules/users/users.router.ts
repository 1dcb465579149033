import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { UserSchema } from './users.schemas.ts';
import { getUserProfile } from './users.service.ts';

export const usersRouter = router({
  me: scopedProcedure('read:profile')
    .meta({ openapi: { method: 'GET', path: '/me', operationId: 'getMe', tags: ['User'], summary: 'Get the authenticated user' } })
    .input(z.void())
    .output(UserSchema)
    .query(({ ctx }) => getUserProfile(ctx.em, ctx.principal.userId)),
});
