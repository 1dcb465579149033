import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../lib/errors.ts';
import type { Principal } from './principal.ts';

/**
 * A live token's principal, and until when (the request clock's time) that answer may be reused without asking
 * the database again, provided no change of the user's tokens, grants or plan was notified meanwhile: the token's
 * expiry, or the moment a PAT's last-used time is due to be written again.
 */
export interface ResolvedBearer {
  principal: Principal;
  reusableUntil: Date;
}

/** Turns one kind of bearer token into a principal, or null when no live token has that value. */
export type BearerResolver = (em: EntityManager, token: string, now: Date) => Promise<ResolvedBearer | null>;

/**
 * The resolvers one protected resource (its `audience`) accepts, by token prefix. Assembled where the app is wired
 * (src/bearer-resolvers.ts), because OAuth access tokens are resolved by the OAuth server, which sits above identity.
 */
export interface BearerResolvers {
  /** The resource these resolvers answer for; part of the principal cache's key, as an OAuth token's answer depends on it. */
  readonly audience: string;
  readonly byPrefix: Readonly<Record<string, BearerResolver>>;
}

export class AuthenticationError extends DomainError {
  /** RFC 6750 §3 error code for the WWW-Authenticate challenge; absent when no credentials were sent. */
  readonly bearerError: 'invalid_token' | 'invalid_request' | undefined;
  /** A credential was sent and refused (counted against the address), as opposed to none being sent. */
  readonly credentialRefused: boolean;

  constructor(message: string, bearerError?: 'invalid_token' | 'invalid_request', credentialRefused = bearerError !== undefined) {
    super('unauthenticated', message);
    this.bearerError = bearerError;
    this.credentialRefused = credentialRefused;
  }
}

const BEARER = /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i;

/** The token of an `Authorization: Bearer …` header (scheme case-insensitive, RFC 6750 §2.1). */
export function parseBearerHeader(header: string | string[] | undefined): string {
  if (header === undefined || header === '') {
    throw new AuthenticationError('Authentication required: send a token as "Authorization: Bearer <token>".');
  }
  const match = typeof header === 'string' ? BEARER.exec(header) : null;
  if (!match?.[1]) {
    throw new AuthenticationError('Malformed Authorization header: expected "Bearer <token>".', 'invalid_request');
  }
  return match[1];
}
