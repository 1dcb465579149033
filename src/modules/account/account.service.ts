/**
 * What only the signed-in user may do to their account, in the web app (never with a token): change the e-mail
 * address or the password, end their sessions, delete the account. Each sensitive change asks for the current
 * password, checked under the sign-in limits (src/identity/sessions.ts, confirmPassword).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, invalidField } from '../../lib/errors.ts';
import { violatedUniqueConstraint } from '../../lib/unique-violation.ts';
import { hashPassword } from '../../identity/passwords.ts';
import { passwordWeakness } from '../../identity/password-strength.ts';
import { confirmPassword, deleteSessionsOf } from '../../identity/sessions.ts';
import { getUserProfile } from '../users/users.service.ts';
import type { User } from '../users/users.schemas.ts';
import type { ChangeEmailInput, ChangePasswordInput } from './account.schemas.ts';
import { voidPasswordResets } from './password-reset.service.ts';

/** Who asks, from where and when: the password checks count failures per client address, as sign-in does. */
export interface AccountCaller {
  userId: string;
  /** The session the request came with. */
  sessionId: string;
  ip: string;
  now: Date;
}

/** 429 for a password checked too often; the router turns `retryAfterSec` into Retry-After. */
export class PasswordChecksThrottled extends DomainError {
  readonly retryAfterSec: number;
  constructor(retryAfterSec: number) {
    super('rate_limited', `Too many wrong passwords. Retry after ${retryAfterSec} seconds.`);
    this.retryAfterSec = retryAfterSec;
  }
}

/** 400 on `field` for a wrong password; 429 while the sign-in limits hold. */
export async function requirePassword(em: EntityManager, caller: AccountCaller, password: string, field: string): Promise<void> {
  const check = await confirmPassword(em, { userId: caller.userId, password, ip: caller.ip, now: caller.now });
  if (check.ok) return;
  if (check.reason === 'throttled') throw new PasswordChecksThrottled(check.retryAfterSec);
  throw invalidField([field], 'is not your current password');
}

/** A new sign-in address: 409 when another account has it (compared case-insensitively, as sign-in does). */
export async function changeEmail(em: EntityManager, caller: AccountCaller, input: ChangeEmailInput): Promise<User> {
  await requirePassword(em, caller, input.currentPassword, 'currentPassword');
  try {
    await em.transactional(async (tx) => {
      await tx.execute('update app_user set email = ?, updated_at = ? where id = ?', [input.email, caller.now, caller.userId], 'run');
      // Reset links sent to the old address must not reach the account any more.
      await voidPasswordResets(tx, caller.userId);
    });
  } catch (error) {
    if (violatedUniqueConstraint(error) === 'app_user_email_key') {
      throw new DomainError('conflict', `Another account uses ${input.email}; choose another address.`);
    }
    throw error;
  }
  return getUserProfile(em, caller.userId);
}

/**
 * A new password, held to the rule every password follows; the user's other sessions end (whoever else was signed
 * in with the old password is out), the caller's stays, and reset links void. Tokens are not tied to the password
 * and keep working.
 */
export async function changePassword(em: EntityManager, caller: AccountCaller, input: ChangePasswordInput): Promise<{ signedOutSessions: number }> {
  await requirePassword(em, caller, input.currentPassword, 'currentPassword');
  if (input.newPassword === input.currentPassword) throw invalidField(['newPassword'], 'is your current password; choose a new one');
  const user = await getUserProfile(em, caller.userId);
  const weakness = await passwordWeakness(input.newPassword, [user.email, user.name ?? '']);
  if (weakness) throw invalidField(['newPassword'], weakness);
  const passwordHash = await hashPassword(input.newPassword);
  return em.transactional(async (tx) => {
    await tx.execute('update app_user set password_hash = ?, updated_at = ? where id = ?', [passwordHash, caller.now, caller.userId], 'run');
    await voidPasswordResets(tx, caller.userId);
    return { signedOutSessions: await deleteSessionsOf(tx, caller.userId, caller.sessionId) };
  });
}

/**
 * Ends the user's sessions, the caller's too unless `keepCurrent`. Sessions are looked up on every request (never
 * cached), so every instance refuses an ended one at its next request.
 */
export async function signOutEverywhere(em: EntityManager, caller: AccountCaller, keepCurrent: boolean): Promise<{ signedOutSessions: number }> {
  return { signedOutSessions: await deleteSessionsOf(em, caller.userId, keepCurrent ? caller.sessionId : undefined) };
}
