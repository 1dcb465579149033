import { defineEntity, p } from '@mikro-orm/core';

/** A first-party sign-in. The cookie carries the raw id; only its SHA-256 hash is stored. */
export const SessionEntity = defineEntity({
  name: 'Session',
  tableName: 'user_session',
  properties: {
    id: p.string().primary(),
    idHash: p.string().unique().hidden(),
    userId: p.string(),
    /** Bound to this session: every state-changing form of the signed-in user must echo it. */
    csrfToken: p.string().hidden(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
  },
});

/** A failed sign-in, counted per e-mail address and per client address to slow down password guessing. */
export const LoginAttemptEntity = defineEntity({
  name: 'LoginAttempt',
  tableName: 'login_attempt',
  properties: {
    id: p.string().primary(),
    emailKey: p.string(),
    ip: p.string(),
    attemptedAt: p.datetime(),
  },
});
