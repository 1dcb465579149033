import { defineEntity, p } from '@mikro-orm/core';

/** A first-party sign-in. The cookie carries the raw id; only its SHA-256 hash is stored. */
export const SessionEntity = defineEntity({
  name: 'Session',
  tableName: 'user_session',
  properties: {
    id: p.text().primary(),
    idHash: p.text().unique('user_session_id_hash_key').hidden(),
    userId: p.text(),
    /** Bound to this session: every state-changing form of the signed-in user must echo it. */
    csrfToken: p.text().hidden(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    expiresAt: p.datetime(),
  },
});

/** A failed sign-in, counted per e-mail address and per client address to slow down password guessing. */
export const LoginAttemptEntity = defineEntity({
  name: 'LoginAttempt',
  tableName: 'login_attempt',
  properties: {
    id: p.text().primary(),
    emailKey: p.text(),
    ip: p.text(),
    attemptedAt: p.datetime(),
  },
});
