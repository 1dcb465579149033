/**
 * Password reset by an e-mailed link, for someone who cannot sign in. Asking never tells whether an account exists:
 * the same statements run and the same answer comes either way, and an account gets at most
 * RESETS_PER_ACCOUNT_PER_HOUR mails an hour (further asks send nothing, silently). The link's `pwr_` token is
 * stored only hashed, works once and for PASSWORD_RESET_TTL_MIN minutes; using one voids all of the account's, sets
 * the new password (the account settings' rule), ends every session and clears the account's failed sign-ins.
 * API tokens and OAuth grants are not tied to the password and stay, as with a password change.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { PASSWORD_RESET_PREFIX, PASSWORD_RESET_TTL_MIN } from '../../identity/password-reset-links.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordWeakness } from '../../identity/password-strength.ts';
import { hashPassword, verifyPassword } from '../../identity/passwords.ts';
import { deleteSessionsOf, emailKey } from '../../identity/sessions.ts';
import { newId } from '../../lib/ids.ts';
import { sealSecret } from '../../lib/sealed-secrets.ts';
import { generateToken, hashToken, looksLikeToken } from '../../lib/secrets.ts';

/** Reset mails one account may get per hour; more asks send nothing (the links already sent still work). */
export const RESETS_PER_ACCOUNT_PER_HOUR = 3;
/** How long account mail is kept (without its link, which goes when it is sent, used or expired). */
const ACCOUNT_MAIL_RETENTION_DAYS = 30;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Asks for a reset link for `email`: when an account has that address (any letter case) and has not had its
 * hourly share, a token and its mail are written in one statement; otherwise the same statement writes nothing.
 */
export async function requestPasswordReset(em: EntityManager, input: { email: string; now: Date }): Promise<void> {
  const { now } = input;
  const token = generateToken(PASSWORD_RESET_PREFIX);
  const expiresAt = new Date(now.getTime() + PASSWORD_RESET_TTL_MIN * MINUTE);
  await em.transactional(async (tx) => {
    const sealed = await sealSecret(tx, 'password-reset-link', token);
    await tx.execute(
      `with target as (
         select u.id, u.email, coalesce(u.name, u.email) as name from app_user u
          where lower(u.email) = ?
            and (select count(*) from account_message m
                  where m.user_id = u.id and m.kind = 'password_reset' and m.created_at > ?) < ?
       ), token as (
         insert into password_reset_token (token_hash, user_id, created_at, expires_at) select ?, id, ?, ? from target
       )
       insert into account_message (id, user_id, kind, recipient, status, next_attempt_at, facts, sealed_link, created_at)
       select ?, t.id, 'password_reset', t.email, 'queued', ?, jsonb_build_object('name', t.name, 'expiresAt', ?::text), ?, ?
         from target t`,
      [
        emailKey(input.email),
        new Date(now.getTime() - HOUR),
        RESETS_PER_ACCOUNT_PER_HOUR,
        hashToken(token),
        now,
        expiresAt,
        newId(),
        now,
        expiresAt.toISOString(),
        sealed,
        now,
      ],
      'run',
    );
    // Housekeeping, whoever asks: expired tokens and the links of their mails go, old mail goes.
    const retainedSince = new Date(now.getTime() - ACCOUNT_MAIL_RETENTION_DAYS * 24 * HOUR);
    await tx.execute(
      `with expired as (delete from password_reset_token where expires_at <= ?),
            old as (delete from account_message where created_at < ?)
       update account_message set sealed_link = null where sealed_link is not null and created_at <= ? and created_at >= ?`,
      [now, retainedSince, new Date(now.getTime() - PASSWORD_RESET_TTL_MIN * MINUTE), retainedSince],
      'run',
    );
  });
}

interface ResetTarget {
  user_id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
}

async function findTarget(em: EntityManager, token: string, now: Date): Promise<ResetTarget | undefined> {
  if (!looksLikeToken(PASSWORD_RESET_PREFIX, token)) return undefined;
  const [target] = await em.execute<ResetTarget[]>(
    `select t.user_id, u.email, u.name, u.password_hash
       from password_reset_token t join app_user u on u.id = t.user_id
      where t.token_hash = ? and t.expires_at > ?`,
    [hashToken(token), now],
  );
  return target;
}

/** The account a reset link is for, while the link works (the page names it); undefined otherwise. */
export async function findPasswordReset(em: EntityManager, token: string, now: Date): Promise<{ email: string } | undefined> {
  const target = await findTarget(em, token, now);
  return target ? { email: target.email } : undefined;
}

export type PasswordResetOutcome =
  | { ok: true; email: string; signedOutSessions: number }
  | { ok: false; reason: 'invalid_link' }
  | { ok: false; reason: 'invalid_password'; message: string; email: string };

/** What is wrong with a new password, by the rule every password follows; null when nothing is. */
async function newPasswordProblem(target: ResetTarget, password: string): Promise<string | null> {
  if (password.length < MIN_PASSWORD_LENGTH) return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `The password can be at most ${MAX_PASSWORD_LENGTH} characters.`;
  const weakness = await passwordWeakness(password, [target.email, target.name ?? '']);
  if (weakness) return `Choose another password. ${weakness}`;
  if (target.password_hash && (await verifyPassword(target.password_hash, password))) {
    return 'This is your current password: choose a new one, or sign in with it.';
  }
  return null;
}

/**
 * Sets a new password with a reset link. The token is spent by deleting it, so of two uses at once one wins; the
 * account's other tokens go with it, and its kept mail's links.
 */
export async function resetPassword(em: EntityManager, input: { token: string; password: string; now: Date }): Promise<PasswordResetOutcome> {
  const target = await findTarget(em, input.token, input.now);
  if (!target) return { ok: false, reason: 'invalid_link' };
  const problem = await newPasswordProblem(target, input.password);
  if (problem) return { ok: false, reason: 'invalid_password', message: problem, email: target.email };
  const passwordHash = await hashPassword(input.password);
  return em.transactional(async (tx) => {
    const spent = await tx.execute<{ user_id: string }[]>(
      'delete from password_reset_token where token_hash = ? and expires_at > ? returning user_id',
      [hashToken(input.token), input.now],
    );
    if (spent.length === 0) return { ok: false, reason: 'invalid_link' } as const;
    const userId = target.user_id;
    await tx.execute('update app_user set password_hash = ?, updated_at = ? where id = ?', [passwordHash, input.now, userId], 'run');
    await voidPasswordResets(tx, userId);
    await tx.execute('delete from login_attempt where email_key = ?', [emailKey(target.email)], 'run');
    const signedOutSessions = await deleteSessionsOf(tx, userId);
    return { ok: true, email: target.email, signedOutSessions } as const;
  });
}

/** Voids every reset link of the user (a password or e-mail address changed): tokens and the kept mail's links. */
export async function voidPasswordResets(em: EntityManager, userId: string): Promise<void> {
  await em.execute(
    `with tokens as (delete from password_reset_token where user_id = ?)
     update account_message set sealed_link = null where user_id = ? and sealed_link is not null`,
    [userId, userId],
    'run',
  );
}
