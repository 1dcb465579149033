import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../lib/ids.ts';

/**
 * The API reference at /api/docs is a first-party public client of our own authorization server: "Authorize"
 * there runs the authorization code flow with PKCE in a popup and lands on API_REFERENCE_REDIRECT_PATH, where the
 * reference reads the code. Its client id is fixed and well known (public clients hold no secret), so every
 * instance and every restart agree on it without configuration.
 */
export const API_REFERENCE_CLIENT_ID = 'oci_api_reference';
export const API_REFERENCE_REDIRECT_PATH = '/api/docs/oauth2-redirect';
const API_REFERENCE_CLIENT_NAME = 'API reference';

export function apiReferenceRedirectUri(siteUrl: string): string {
  return `${siteUrl}${API_REFERENCE_REDIRECT_PATH}`;
}

/**
 * Registers the API reference's client, or points its redirect URI at the current SITE_URL: idempotent, and safe
 * when several instances start at once (one statement, keyed by the client id).
 */
export async function ensureApiReferenceClient(em: EntityManager, siteUrl: string): Promise<void> {
  await em.getConnection().execute(
    `insert into oauth_client (id, client_id, name, redirect_uris, type, owner_user_id, dynamically_registered)
     values (?, ?, ?, array[?]::text[], 'public', null, false)
     on conflict (client_id) do update set redirect_uris = excluded.redirect_uris, name = excluded.name, updated_at = now()
     where oauth_client.redirect_uris is distinct from excluded.redirect_uris or oauth_client.name is distinct from excluded.name`,
    [newId(), API_REFERENCE_CLIENT_ID, API_REFERENCE_CLIENT_NAME, apiReferenceRedirectUri(siteUrl)],
  );
}
