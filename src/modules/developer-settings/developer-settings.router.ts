import { z } from 'zod';
import { sessionProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import {
  CreatedPersonalAccessTokenSchema,
  CreateOAuthAppInputSchema,
  CreatePersonalAccessTokenInputSchema,
  GrantedAppSchema,
  IdInputSchema,
  OAuthAppSchema,
  OAuthAppWithSecretSchema,
  OkSchema,
  PersonalAccessTokenSchema,
  ScopeCatalogSchema,
  UpdateOAuthAppInputSchema,
} from './developer-settings.schemas.ts';
import {
  createOAuthApp,
  createPersonalAccessTokenForUser,
  deleteOAuthApp,
  listGrantedApps,
  listOAuthApps,
  listPersonalAccessTokens,
  revokeGrantedApp,
  revokePersonalAccessToken,
  rotateOAuthAppSecret,
  scopeCatalog,
  updateOAuthApp,
} from './developer-settings.service.ts';

/**
 * The user's developer settings, on /trpc only (no OpenAPI meta): a signed-in session is required, so a
 * token can never mint another token or register an app.
 */
export const developerSettingsRouter = router({
  /** Every scope a token can carry, with the sentence the settings page shows for it. */
  scopes: sessionProcedure
    .input(z.void())
    .output(ScopeCatalogSchema)
    .query(() => scopeCatalog()),

  tokens: router({
    list: sessionProcedure
      .input(z.void())
      .output(z.array(PersonalAccessTokenSchema))
      .query(({ ctx }) => listPersonalAccessTokens(ctx.em, ctx.principal.userId, ctx.clock.now())),
    create: sessionProcedure
      .input(CreatePersonalAccessTokenInputSchema)
      .output(CreatedPersonalAccessTokenSchema)
      .mutation(({ ctx, input }) => createPersonalAccessTokenForUser(ctx.em, ctx.principal, input, ctx.clock.now())),
    revoke: sessionProcedure
      .input(IdInputSchema)
      .output(OkSchema)
      .mutation(({ ctx, input }) => revokePersonalAccessToken(ctx.em, ctx.principal.userId, input.id, ctx.clock.now())),
  }),

  apps: router({
    list: sessionProcedure
      .input(z.void())
      .output(z.array(OAuthAppSchema))
      .query(({ ctx }) => listOAuthApps(ctx.em, ctx.principal.userId)),
    create: sessionProcedure
      .input(CreateOAuthAppInputSchema)
      .output(OAuthAppWithSecretSchema)
      .mutation(({ ctx, input }) => createOAuthApp(ctx.em, ctx.principal, input, ctx.clock.now())),
    update: sessionProcedure
      .input(UpdateOAuthAppInputSchema)
      .output(OAuthAppSchema)
      .mutation(({ ctx, input }) => updateOAuthApp(ctx.em, ctx.principal.userId, input)),
    rotateSecret: sessionProcedure
      .input(IdInputSchema)
      .output(OAuthAppWithSecretSchema)
      .mutation(({ ctx, input }) => rotateOAuthAppSecret(ctx.em, ctx.principal.userId, input.id)),
    delete: sessionProcedure
      .input(IdInputSchema)
      .output(OkSchema)
      .mutation(({ ctx, input }) => deleteOAuthApp(ctx.em, ctx.principal.userId, input.id)),
  }),

  grants: router({
    list: sessionProcedure
      .input(z.void())
      .output(z.array(GrantedAppSchema))
      .query(({ ctx }) => listGrantedApps(ctx.em, ctx.principal.userId, ctx.clock.now())),
    revoke: sessionProcedure
      .input(IdInputSchema)
      .output(OkSchema)
      .mutation(({ ctx, input }) => revokeGrantedApp(ctx.em, ctx.principal.userId, input.id, ctx.clock.now())),
  }),
});
