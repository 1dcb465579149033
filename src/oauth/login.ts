import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  createSession,
  csrfTokenMatches,
  DEVICE_COOKIE_TTL_SEC,
  deleteSession,
  deviceCookieName,
  type ResolvedSession,
  resolveSession,
  SESSION_TTL_SEC,
  sessionCookieName,
  sessionCookieOptions,
  signInWithPassword,
} from '../identity/sessions.ts';
import { FORGOT_PASSWORD_PATH } from '../identity/password-reset-links.ts';
import { UserEntity } from '../identity/user.entity.ts';
import { escapeHtml, hiddenInput, renderPage, sendHtml } from '../lib/html-page.ts';
import { generateToken } from '../lib/secrets.ts';
import type { SharedServices } from '../lib/services.ts';

export const LOGIN_PATH = '/login';
const LOGIN_CSRF_TTL_SEC = 3600;
const MAX_FIELD_LENGTH = 1000;

/**
 * Where to go after signing in: only a path on this site (open-redirect protection). The target is
 * normalised first with the WHATWG parser, as a browser would (dot segments, `%2e`), and the normalised form
 * is both what is checked and what is returned, so `/.//evil`, `/x/..//evil` or `/%2e//evil` cannot become a
 * protocol-relative `//evil` after the check. Anything that could leave the origin — a scheme, `//host`, a
 * backslash anywhere, control characters — falls back to the sign-in page.
 */
export function safeNextPath(next: string | undefined): string {
  if (!next || next.length > 8000 || !next.startsWith('/') || next.includes('\\') || hasControlOrSpace(next)) {
    return LOGIN_PATH;
  }
  const base = 'http://same-origin.invalid';
  let url: URL;
  try {
    url = new URL(next, base);
  } catch {
    return LOGIN_PATH;
  }
  const target = `${url.pathname}${url.search}`;
  if (url.origin !== base || !/^\/(?![/\\])/.test(target) || new URL(target, base).href !== url.href) return LOGIN_PATH;
  return target;
}

function hasControlOrSpace(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return true;
  }
  return false;
}

export function loginUrlFor(next: string): string {
  return `${LOGIN_PATH}?next=${encodeURIComponent(next)}`;
}

function loginCsrfCookieName(siteUrl: string): string {
  return siteUrl.startsWith('https:') ? '__Host-login_csrf' : 'login_csrf';
}

function field(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' && value.length <= MAX_FIELD_LENGTH * 8 ? value : undefined;
}

interface LoginFormState {
  next: string;
  email?: string;
  error?: string;
  /** After a password reset: the password changed and every session ended. */
  passwordReset?: boolean;
}

function renderLoginForm(csrf: string, state: LoginFormState, signupOpen: boolean): string {
  const error = state.error ? `<p class="error" role="alert" id="login-error">${escapeHtml(state.error)}</p>` : '';
  const describedBy = state.error ? ' aria-describedby="login-error"' : '';
  const reset = state.passwordReset
    ? '<p class="notice" role="status" id="password-reset-done">Your password is changed, and your account is signed out everywhere. Sign in with the new password.</p>\n'
    : '';
  return renderPage(
    'Sign in',
    `<h1>Sign in</h1>
${reset}${error}
<form method="post" action="${LOGIN_PATH}" id="login">
${hiddenInput('csrf', csrf)}
${hiddenInput('next', state.next)}
<label for="email">E-mail address</label>
<input type="email" id="email" name="email" autocomplete="username" required maxlength="320" value="${escapeHtml(state.email ?? '')}"${describedBy}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required maxlength="${MAX_FIELD_LENGTH}"${describedBy}>
<div class="actions"><button type="submit" class="primary">Sign in</button></div>
</form>
<p class="muted"><a href="${FORGOT_PASSWORD_PATH}">Forgot password?</a></p>${signupOpen ? '\n<p class="muted">New here? <a href="/signup">Create an account</a></p>' : ''}`,
  );
}

function renderSignedIn(email: string, session: ResolvedSession): string {
  return renderPage(
    'Signed in',
    `<h1>You are signed in</h1>
<p>Signed in as <strong>${escapeHtml(email)}</strong>.</p>
<form method="post" action="/logout" class="actions">
${hiddenInput('csrf', session.csrfToken)}
<button type="submit">Sign out</button>
</form>`,
  );
}

/** First-party sign-in: GET/POST /login and POST /logout (docs/operations.md, "Addresses"). */
export function registerLogin(app: FastifyInstance, deps: { services: SharedServices; orm: MikroORM }): void {
  const { services, orm } = deps;
  const siteUrl = services.env.SITE_URL;
  const cookieName = sessionCookieName(siteUrl);
  const csrfCookieName = loginCsrfCookieName(siteUrl);
  const deviceCookie = deviceCookieName(siteUrl);
  const { maxAge: _maxAge, ...clearOptions } = sessionCookieOptions(siteUrl);

  /** A fresh form, with a login CSRF token double-submitted as a cookie (no session exists yet to bind it to). */
  function sendLoginForm(reply: FastifyReply, status: number, state: LoginFormState): FastifyReply {
    const csrf = generateToken('lcsrf_');
    reply.setCookie(csrfCookieName, csrf, sessionCookieOptions(siteUrl, LOGIN_CSRF_TTL_SEC));
    return sendHtml(reply, status, renderLoginForm(csrf, state, services.env.SIGNUP_PLAN !== 'off'));
  }

  async function currentSession(request: FastifyRequest): Promise<ResolvedSession | null> {
    return resolveSession(orm.em.fork(), request.cookies[cookieName], services.clock.now());
  }

  app.get(LOGIN_PATH, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const next = safeNextPath(field(query, 'next'));
    const session = await currentSession(request);
    if (session) {
      if (next !== LOGIN_PATH) return reply.header('Cache-Control', 'no-store').redirect(next, 303);
      const user = await orm.em.fork().findOne(UserEntity, { id: session.userId });
      return sendHtml(reply, 200, renderSignedIn(user?.email ?? '', session));
    }
    return sendLoginForm(reply, 200, { next, passwordReset: field(query, 'reset') === 'done' });
  });

  app.post(LOGIN_PATH, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const next = safeNextPath(field(body, 'next'));
    const email = field(body, 'email')?.slice(0, 320) ?? '';
    const password = field(body, 'password') ?? '';
    const expectedCsrf = request.cookies[csrfCookieName];
    if (!expectedCsrf || !csrfTokenMatches(expectedCsrf, field(body, 'csrf'))) {
      return sendLoginForm(reply, 403, { next, email, error: 'This sign-in form has expired. Please try again.' });
    }
    if (!email || !password || password.length > MAX_FIELD_LENGTH) {
      return sendLoginForm(reply, 400, { next, email, error: 'Enter your e-mail address and password.' });
    }
    const em = orm.em.fork();
    const now = services.clock.now();
    const deviceToken = request.cookies[deviceCookie];
    const result = await signInWithPassword(em, { email, password, ip: request.ip, deviceToken, now });
    if (!result.ok && result.reason === 'throttled') {
      const minutes = Math.ceil(result.retryAfterSec / 60);
      reply.header('Retry-After', String(result.retryAfterSec));
      return sendLoginForm(reply, 429, {
        next,
        email,
        error: `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      });
    }
    if (!result.ok) {
      return sendLoginForm(reply, 401, { next, email, error: 'The e-mail address or password is incorrect.' });
    }
    // A new session on every sign-in (never reuse one that existed before: session fixation).
    await deleteSession(em, request.cookies[cookieName]);
    const session = await createSession(em, result.userId, now);
    reply.setCookie(cookieName, session.cookieValue, sessionCookieOptions(siteUrl, SESSION_TTL_SEC));
    reply.setCookie(deviceCookie, result.deviceToken, sessionCookieOptions(siteUrl, DEVICE_COOKIE_TTL_SEC));
    reply.clearCookie(csrfCookieName, clearOptions);
    return reply.header('Cache-Control', 'no-store').redirect(next, 303);
  });

  app.post('/logout', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const session = await currentSession(request);
    const next = safeNextPath(field(body, 'next'));
    const target = next === LOGIN_PATH ? LOGIN_PATH : loginUrlFor(next);
    if (!session) return reply.header('Cache-Control', 'no-store').redirect(target, 303);
    if (!csrfTokenMatches(session.csrfToken, field(body, 'csrf'))) {
      return sendHtml(
        reply,
        403,
        renderPage('Sign out', '<h1>Sign out</h1><p class="error" role="alert">This sign-out form has expired. Reload the page and try again.</p>'),
      );
    }
    await deleteSession(orm.em.fork(), request.cookies[cookieName]);
    reply.clearCookie(cookieName, clearOptions);
    return reply.header('Cache-Control', 'no-store').redirect(target, 303);
  });
}
