import { z } from 'zod';
import { ScopeSchema } from '../../identity/scopes.ts';

// The developer settings are served on /trpc only (first-party, signed-in users); none of these shapes
// appears in the OpenAPI document.

export const PersonalAccessTokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The first characters of the token (`pat_` and six more), enough to recognise it; never the secret. */
  prefix: z.string(),
  scopes: z.array(ScopeSchema),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
  expiresAt: z.iso.datetime().nullable(),
  expired: z.boolean(),
});
export type PersonalAccessTokenDto = z.infer<typeof PersonalAccessTokenSchema>;

export const CreatePersonalAccessTokenInputSchema = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(100),
  scopes: z.array(ScopeSchema).min(1, 'pick at least one scope'),
  /** When the token stops working; null or absent for a token that does not expire. */
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional(),
});
export type CreatePersonalAccessTokenInput = z.infer<typeof CreatePersonalAccessTokenInputSchema>;

export const CreatedPersonalAccessTokenSchema = z.object({
  token: PersonalAccessTokenSchema,
  /** The raw token (`pat_…`): returned by this call only, never again. */
  secret: z.string(),
});

export const IdInputSchema = z.object({ id: z.string().min(1).max(200) });

/** The answer of a revoke or delete: it happened (or had already happened). */
export const OkSchema = z.object({ ok: z.literal(true) });
export type Ok = z.infer<typeof OkSchema>;

export const ScopeCatalogSchema = z.array(z.object({ scope: ScopeSchema, description: z.string() }));

export const OAuthClientTypeSchema = z.enum(['confidential', 'public']);

const RedirectUrisSchema = z
  .array(z.string().trim().min(1).max(2000))
  .min(1, 'add at least one redirect URI')
  .max(10, 'at most 10 redirect URIs');

export const OAuthAppSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  name: z.string(),
  redirectUris: z.array(z.string()),
  type: OAuthClientTypeSchema,
  createdAt: z.iso.datetime(),
});
export type OAuthAppDto = z.infer<typeof OAuthAppSchema>;

export const CreateOAuthAppInputSchema = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(100),
  redirectUris: RedirectUrisSchema,
  type: OAuthClientTypeSchema,
});
export type CreateOAuthAppInput = z.infer<typeof CreateOAuthAppInputSchema>;

export const UpdateOAuthAppInputSchema = z.object({
  id: z.string().min(1).max(200),
  name: z.string().trim().min(1, 'must not be empty').max(100).optional(),
  redirectUris: RedirectUrisSchema.optional(),
});
export type UpdateOAuthAppInput = z.infer<typeof UpdateOAuthAppInputSchema>;

export const OAuthAppWithSecretSchema = z.object({
  app: OAuthAppSchema,
  /** A confidential app's client secret: returned at creation and on rotation only. Null for public apps. */
  clientSecret: z.string().nullable(),
});

export const GrantedAppSchema = z.object({
  id: z.string().describe('The grant'),
  app: z.object({ clientId: z.string(), name: z.string(), verified: z.boolean() }),
  scopes: z.array(z.string()),
  grantedAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
});
export type GrantedAppDto = z.infer<typeof GrantedAppSchema>;
