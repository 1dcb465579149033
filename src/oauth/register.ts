import type { EntityManager } from '@mikro-orm/postgresql';
import { clientNameProblem, MAX_REDIRECT_URIS, normaliseClientName, redirectUriProblem } from './client-metadata.ts';
import { registerPublicClient } from './clients.ts';
import { OAuthError } from './errors.ts';
import { GRANT_TYPES } from './token.ts';

export interface RegistrationResponse {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function metadataError(description: string): OAuthError {
  return new OAuthError('invalid_client_metadata', description);
}

/**
 * RFC 7591 dynamic registration of a public client. What we register is what we answer with, defaults
 * included (§3.2.1); metadata we do not support is ignored rather than echoed (§2); the client cannot
 * pick its own client_id, and never gets a secret.
 */
export async function registerClient(em: EntityManager, body: unknown, now: Date): Promise<RegistrationResponse> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw metadataError('The request body must be a JSON object of client metadata.');
  }
  const metadata = body as Record<string, unknown>;

  const redirectUris = metadata.redirect_uris;
  if (!isStringArray(redirectUris) || redirectUris.length === 0) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of strings.');
  }
  if (redirectUris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `Register at most ${MAX_REDIRECT_URIS} redirect URIs.`);
  }
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `Redirect URI ${uri.slice(0, 200)} ${problem}.`);
  }

  const method = metadata.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    throw metadataError("token_endpoint_auth_method must be 'none': registered clients are public and get no secret.");
  }
  const grantTypes = metadata.grant_types;
  if (
    grantTypes !== undefined &&
    (!isStringArray(grantTypes) ||
      !grantTypes.includes('authorization_code') ||
      grantTypes.some((type) => !(GRANT_TYPES as readonly string[]).includes(type)))
  ) {
    throw metadataError("grant_types must include 'authorization_code' and may add 'refresh_token', nothing else.");
  }
  const responseTypes = metadata.response_types;
  if (
    responseTypes !== undefined &&
    (!isStringArray(responseTypes) || responseTypes.length === 0 || responseTypes.some((type) => type !== 'code'))
  ) {
    throw metadataError("response_types must be ['code'].");
  }

  const rawName = metadata.client_name;
  if (rawName !== undefined && typeof rawName !== 'string') throw metadataError('client_name must be a string.');
  const normalised = normaliseClientName(rawName ?? '');
  const nameProblem = clientNameProblem(normalised);
  if (nameProblem) throw metadataError(`client_name ${nameProblem}.`);
  const name = normalised || `Unnamed app (${new URL(redirectUris[0] ?? '').host})`;

  const created = await registerPublicClient(em, { name, redirectUris }, now);
  return {
    client_id: created.clientId,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: name,
    redirect_uris: [...new Set(redirectUris)],
    grant_types: [...GRANT_TYPES],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}
