import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { FORGOT_PASSWORD_PATH, PASSWORD_RESET_PATH, PASSWORD_RESET_TTL_MIN } from '../identity/password-reset-links.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../identity/password-strength.ts';
import { csrfTokenMatches, sessionCookieOptions } from '../identity/sessions.ts';
import { escapeHtml, hiddenInput, renderPage, sendHtml } from '../lib/html-page.ts';
import type { RateLimiter } from '../lib/rate-limit.ts';
import { generateToken } from '../lib/secrets.ts';
import type { SharedServices } from '../lib/services.ts';
import { LOGIN_PATH } from './login.ts';

type Em = ReturnType<MikroORM['em']['fork']>;

/** Where a successful reset sends the browser: sign-in, saying the password changed, then the dashboard. */
export const AFTER_RESET = `${LOGIN_PATH}?reset=done&next=%2Fapp`;

/** The password reset rules, injected by the app: they belong to the account module (its mail, its outbox). */
export interface PasswordResets {
  /** Queues a link for the account with this address, if there is one and it may have another; says nothing. */
  request(em: Em, input: { email: string; now: Date }): Promise<void>;
  /** The account a link is for while it works. */
  find(em: Em, token: string, now: Date): Promise<{ email: string } | undefined>;
  reset(
    em: Em,
    input: { token: string; password: string; now: Date },
  ): Promise<{ ok: true } | { ok: false; reason: 'invalid_link' } | { ok: false; reason: 'invalid_password'; message: string; email: string }>;
}

export interface PasswordResetOptions {
  services: SharedServices;
  orm: MikroORM;
  resets: PasswordResets;
  /** Asks for a link, per client address (every POST counts). */
  limiter: RateLimiter;
}

const CSRF_TTL_SEC = 3600;
const MAX_FIELD_LENGTH = 8 * MAX_PASSWORD_LENGTH;
/** The path parameter is a token or junk; anything longer is junk for sure. */
const MAX_TOKEN_LENGTH = 200;

const EmailSchema = z
  .string()
  .transform((value) => value.normalize('NFKC').trim())
  .pipe(z.email('Enter the e-mail address you sign in with.').max(254, 'The e-mail address is too long.'));

function field(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  return typeof value === 'string' ? value.slice(0, MAX_FIELD_LENGTH) : '';
}

function keptMailNotice(kept: boolean): string {
  return kept
    ? `\n<p class="notice" id="kept-mail">This service sends no e-mail (no SMTP server is configured): the link is kept instead. Its operator reads it with <code>npm run -s cli -- mail list</code>.</p>`
    : '';
}

function renderForgotForm(csrf: string, state: { email?: string; error?: string }, kept: boolean): string {
  const error = state.error ? `<p class="error" role="alert" id="forgot-error">${escapeHtml(state.error)}</p>` : '';
  return renderPage(
    'Forgot your password?',
    `<h1>Forgot your password?</h1>
<p class="muted">Enter the e-mail address you sign in with. If it belongs to an account, we send it a link to choose a new password.</p>
${error}
<form method="post" action="${FORGOT_PASSWORD_PATH}" id="forgot">
${hiddenInput('csrf', csrf)}
<label for="email">E-mail address</label>
<input type="email" id="email" name="email" autocomplete="username" required maxlength="254" value="${escapeHtml(state.email ?? '')}"${state.error ? ' aria-describedby="forgot-error"' : ''}>
<div class="actions"><button type="submit" class="primary">Send the link</button></div>
</form>${keptMailNotice(kept)}
<p class="muted"><a href="${LOGIN_PATH}?next=%2Fapp">Back to sign in</a></p>`,
  );
}

function renderLinkSent(email: string, kept: boolean): string {
  return renderPage(
    'Check your e-mail',
    `<h1>Check your e-mail</h1>
<p role="status" id="link-sent">If an account uses <strong>${escapeHtml(email)}</strong>, a link to choose a new password is on its way there. It works once, within ${PASSWORD_RESET_TTL_MIN} minutes.</p>
<p class="muted">Nothing after a few minutes? Look in the spam folder and check the address, or ask again.</p>${keptMailNotice(kept)}
<nav class="links"><a href="${FORGOT_PASSWORD_PATH}">Send another link</a><a href="${LOGIN_PATH}?next=%2Fapp">Sign in</a></nav>`,
  );
}

function renderResetForm(csrf: string, token: string, state: { email: string; error?: string }): string {
  const error = state.error ? `<p class="error" role="alert" id="reset-error">${escapeHtml(state.error)}</p>` : '';
  const describedBy = state.error ? 'reset-error password-hint' : 'password-hint';
  return renderPage(
    'Choose a new password',
    `<h1>Choose a new password</h1>
<p class="muted">For <strong>${escapeHtml(state.email)}</strong>. Setting it signs the account out everywhere; then you sign in with it.</p>
${error}
<form method="post" action="${PASSWORD_RESET_PATH}" id="reset">
${hiddenInput('csrf', csrf)}
${hiddenInput('token', token)}
<input type="email" name="username" autocomplete="username" value="${escapeHtml(state.email)}" hidden readonly>
<label for="password">New password</label>
<input type="password" id="password" name="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}" aria-describedby="${describedBy}">
<p class="muted" id="password-hint">At least ${MIN_PASSWORD_LENGTH} characters, and not easy to guess: a few uncommon words make a good one.</p>
<div class="actions"><button type="submit" class="primary">Set the new password</button></div>
</form>`,
  );
}

function renderLinkGone(): string {
  return renderPage(
    'This link no longer works',
    `<h1>This link no longer works</h1>
<p class="error" role="alert" id="link-gone">A link to choose a new password works once, within ${PASSWORD_RESET_TTL_MIN} minutes, and not after the password or the e-mail address changed.</p>
<nav class="links"><a href="${FORGOT_PASSWORD_PATH}">Ask for a new link</a><a href="${LOGIN_PATH}?next=%2Fapp">Sign in</a></nav>`,
  );
}

/**
 * Password reset by an e-mailed link: GET/POST /login/forgot asks for the address (the same answer whether or not
 * an account has it), GET /login/reset/<token> offers the form, POST /login/reset sets the password. The protections
 * of /login: a double-submitted CSRF token per form, a per-address limit on asking, no framing, no referrer. The
 * link's GET only reads, so a mail scanner that opens it spends nothing.
 */
export function registerPasswordReset(app: FastifyInstance, options: PasswordResetOptions): void {
  const { services, orm, resets, limiter } = options;
  const siteUrl = services.env.SITE_URL;
  const kept = !services.env.SMTP_URL;
  const secure = siteUrl.startsWith('https:');
  const forgotCsrfCookie = secure ? '__Host-forgot_csrf' : 'forgot_csrf';
  const resetCsrfCookie = secure ? '__Host-reset_csrf' : 'reset_csrf';
  const { maxAge: _maxAge, ...clearOptions } = sessionCookieOptions(siteUrl);

  function sendForgotForm(reply: FastifyReply, status: number, state: { email?: string; error?: string }): FastifyReply {
    const csrf = generateToken('fcsrf_');
    reply.setCookie(forgotCsrfCookie, csrf, sessionCookieOptions(siteUrl, CSRF_TTL_SEC));
    return sendHtml(reply, status, renderForgotForm(csrf, state, kept));
  }

  function sendResetForm(reply: FastifyReply, status: number, token: string, state: { email: string; error?: string }): FastifyReply {
    const csrf = generateToken('rcsrf_');
    reply.setCookie(resetCsrfCookie, csrf, sessionCookieOptions(siteUrl, CSRF_TTL_SEC));
    return sendHtml(reply, status, renderResetForm(csrf, token, state));
  }

  app.get(FORGOT_PASSWORD_PATH, async (_request, reply) => sendForgotForm(reply, 200, {}));

  app.post(FORGOT_PASSWORD_PATH, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const typed = field(body, 'email').slice(0, 320);
    const expectedCsrf = request.cookies[forgotCsrfCookie];
    if (!expectedCsrf || !csrfTokenMatches(expectedCsrf, field(body, 'csrf'))) {
      return sendForgotForm(reply, 403, { email: typed, error: 'This form has expired. Please try again.' });
    }
    const limit = await limiter.consume(`password_reset:${request.ip}`);
    if (!limit.allowed) {
      reply.header('Retry-After', String(limit.retryAfter ?? 60));
      return sendForgotForm(reply, 429, { email: typed, error: 'Too many requests from your network. Try again later.' });
    }
    const parsed = EmailSchema.safeParse(typed);
    if (!parsed.success) {
      return sendForgotForm(reply, 400, { email: typed, error: parsed.error.issues[0]?.message ?? 'Enter the e-mail address you sign in with.' });
    }
    await resets.request(orm.em.fork(), { email: parsed.data, now: services.clock.now() });
    reply.clearCookie(forgotCsrfCookie, clearOptions);
    return sendHtml(reply, 200, renderLinkSent(parsed.data, kept));
  });

  app.get(`${PASSWORD_RESET_PATH}/:token`, async (request, reply) => {
    const { token } = request.params as { token: string };
    const reset = token.length <= MAX_TOKEN_LENGTH ? await resets.find(orm.em.fork(), token, services.clock.now()) : undefined;
    if (!reset) return sendHtml(reply, 410, renderLinkGone());
    return sendResetForm(reply, 200, token, { email: reset.email });
  });

  app.post(PASSWORD_RESET_PATH, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const token = field(body, 'token').slice(0, MAX_TOKEN_LENGTH);
    const em = orm.em.fork();
    const now = services.clock.now();
    const expectedCsrf = request.cookies[resetCsrfCookie];
    if (!expectedCsrf || !csrfTokenMatches(expectedCsrf, field(body, 'csrf'))) {
      const reset = await resets.find(em, token, now);
      if (!reset) return sendHtml(reply, 410, renderLinkGone());
      return sendResetForm(reply, 403, token, { email: reset.email, error: 'This form has expired. Please try again.' });
    }
    const outcome = await resets.reset(em, { token, password: field(body, 'password'), now });
    if (!outcome.ok && outcome.reason === 'invalid_link') return sendHtml(reply, 410, renderLinkGone());
    if (!outcome.ok) return sendResetForm(reply, 400, token, { email: outcome.email, error: outcome.message });
    reply.clearCookie(resetCsrfCookie, clearOptions);
    return reply.header('Cache-Control', 'no-store').redirect(AFTER_RESET, 303);
  });
}
