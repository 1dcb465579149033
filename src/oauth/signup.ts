import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { createSession, resolveSession, SESSION_TTL_SEC, sessionCookieName, sessionCookieOptions, csrfTokenMatches } from '../identity/sessions.ts';
import type { Plan } from '../identity/user.entity.ts';
import { DomainError } from '../lib/errors.ts';
import { escapeHtml, hiddenInput, renderPage, sendHtml } from '../lib/html-page.ts';
import type { RateLimiter } from '../lib/rate-limit.ts';
import { generateToken } from '../lib/secrets.ts';
import type { SharedServices } from '../lib/services.ts';
import { isValidTimeZone } from '../lib/time.ts';
import { findUnsafeInput } from '../lib/unsafe-text.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordWeakness } from '../identity/password-strength.ts';
import { LOGIN_PATH } from './login.ts';

export const SIGNUP_PATH = '/signup';
const SIGNUP_CSRF_TTL_SEC = 3600;
const AFTER_SIGNUP = '/app';

/** Fills the time zone select with the browser's zone; allowed by its hash in the page's CSP. */
const PICK_BROWSER_ZONE =
  "try{var z=Intl.DateTimeFormat().resolvedOptions().timeZone,s=document.getElementById('timezone');if(z&&s&&s.dataset.chosen!=='1'){for(var i=0;i<s.options.length;i++){if(s.options[i].value===z){s.value=z;break}}}}catch(e){}";

/** Creates the account (and its default schedule): injected by the app, since accounts belong to the users module. */
export type CreateAccount = (
  em: ReturnType<MikroORM['em']['fork']>,
  input: { email: string; name: string; password: string; timezone: string; plan: Plan },
) => Promise<{ id: string }>;

export interface SignupOptions {
  services: SharedServices;
  orm: MikroORM;
  createAccount: CreateAccount;
  /** Sign-up attempts per client address (every POST counts). */
  limiter: RateLimiter;
}

/** The form's fields, as every text input of the service: NFKC-folded, trimmed, storable, bounded. */
const SignupFormSchema = z.object({
  name: z
    .string()
    .transform((value) => value.normalize('NFKC').trim())
    .pipe(z.string().min(1, 'Enter your name.').max(200, 'Your name can be at most 200 characters.')),
  email: z
    .string()
    .transform((value) => value.normalize('NFKC').trim())
    .pipe(z.email('Enter a valid e-mail address.').max(254, 'The e-mail address is too long.')),
  password: z
    .string()
    .min(MIN_PASSWORD_LENGTH, `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`)
    .max(MAX_PASSWORD_LENGTH, `The password can be at most ${MAX_PASSWORD_LENGTH} characters.`),
  timezone: z.string().refine(isValidTimeZone, 'Choose a time zone from the list.'),
}).superRefine(async (form, context) => {
  const weakness = await passwordWeakness(form.password, [form.email, form.name]);
  if (weakness) context.addIssue({ code: 'custom', path: ['password'], message: `Choose another password. ${weakness}` });
});

interface FormState {
  name?: string;
  email?: string;
  timezone?: string;
  error?: string;
}

function stringField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  return typeof value === 'string' ? value.slice(0, 8 * MAX_PASSWORD_LENGTH) : '';
}

function timeZoneOptions(chosen: string): string {
  return Intl.supportedValuesOf('timeZone')
    .concat('UTC')
    .filter((zone, index, all) => all.indexOf(zone) === index)
    .sort()
    .map((zone) => `<option${zone === chosen ? ' selected' : ''}>${escapeHtml(zone)}</option>`)
    .join('');
}

function renderSignupForm(csrf: string, plan: Plan, state: FormState): string {
  const error = state.error ? `<p class="error" role="alert" id="signup-error">${escapeHtml(state.error)}</p>` : '';
  const chosen = state.timezone && isValidTimeZone(state.timezone) ? state.timezone : 'UTC';
  return renderPage(
    'Create an account',
    `<h1>Create an account</h1>
<p class="muted">New accounts get the ${escapeHtml(plan.charAt(0).toUpperCase() + plan.slice(1))} plan. You will land in your dashboard, ready to set up your first event type.</p>
${error}
<form method="post" action="${SIGNUP_PATH}" id="signup">
${hiddenInput('csrf', csrf)}
<label for="name">Name</label>
<input type="text" id="name" name="name" autocomplete="name" required maxlength="200" value="${escapeHtml(state.name ?? '')}">
<label for="email">E-mail address</label>
<input type="email" id="email" name="email" autocomplete="email" required maxlength="254" value="${escapeHtml(state.email ?? '')}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}" aria-describedby="password-hint">
<p class="muted" id="password-hint">At least ${MIN_PASSWORD_LENGTH} characters, and not easy to guess: a few uncommon words make a good one.</p>
<label for="timezone">Time zone</label>
<select id="timezone" name="timezone"${state.timezone ? ' data-chosen="1"' : ''}>${timeZoneOptions(chosen)}</select>
<div class="actions"><button type="submit" class="primary">Create account</button></div>
</form>
<p class="muted">Already have an account? <a href="${LOGIN_PATH}?next=%2Fapp">Sign in</a></p>`,
    PICK_BROWSER_ZONE,
  );
}

function renderSignupOff(): string {
  return renderPage(
    'Sign-up is off',
    `<h1>Sign-up is turned off</h1>
<p>This service does not create accounts on request. Ask its operator for an account, then <a href="${LOGIN_PATH}">sign in</a>.</p>`,
  );
}

/**
 * Self-service sign-up: GET/POST /signup. Same protections as /login: a double-submitted CSRF token, a per-address
 * rate limit, no framing; the password is hashed with Argon2id by the account creation. SIGNUP_PLAN=off answers 404.
 */
export function registerSignup(app: FastifyInstance, options: SignupOptions): void {
  const { services, orm, createAccount, limiter } = options;
  const siteUrl = services.env.SITE_URL;
  const plan = services.env.SIGNUP_PLAN;
  const cookieName = sessionCookieName(siteUrl);
  const csrfCookieName = siteUrl.startsWith('https:') ? '__Host-signup_csrf' : 'signup_csrf';

  function sendForm(reply: FastifyReply, status: number, signupPlan: Plan, state: FormState): FastifyReply {
    const csrf = generateToken('scsrf_');
    reply.setCookie(csrfCookieName, csrf, sessionCookieOptions(siteUrl, SIGNUP_CSRF_TTL_SEC));
    return sendHtml(reply, status, renderSignupForm(csrf, signupPlan, state), [], [PICK_BROWSER_ZONE]);
  }

  app.get(SIGNUP_PATH, async (request, reply) => {
    if (plan === 'off') return sendHtml(reply, 404, renderSignupOff());
    const session = await resolveSession(orm.em.fork(), request.cookies[cookieName], services.clock.now());
    if (session) return reply.header('Cache-Control', 'no-store').redirect(AFTER_SIGNUP, 303);
    return sendForm(reply, 200, plan, {});
  });

  app.post(SIGNUP_PATH, async (request, reply) => {
    if (plan === 'off') return sendHtml(reply, 404, renderSignupOff());
    const body = (request.body ?? {}) as Record<string, unknown>;
    const state = { name: stringField(body, 'name'), email: stringField(body, 'email'), timezone: stringField(body, 'timezone') };
    const expectedCsrf = request.cookies[csrfCookieName];
    if (!expectedCsrf || !csrfTokenMatches(expectedCsrf, stringField(body, 'csrf'))) {
      return sendForm(reply, 403, plan, { ...state, error: 'This sign-up form has expired. Please try again.' });
    }
    const limit = await limiter.consume(`signup:${request.ip}`);
    if (!limit.allowed) {
      reply.header('Retry-After', String(limit.retryAfter ?? 60));
      return sendForm(reply, 429, plan, { ...state, error: 'Too many sign-up attempts from your network. Try again later.' });
    }
    const form = { ...state, password: stringField(body, 'password') };
    if (findUnsafeInput(form)) {
      return sendForm(reply, 400, plan, { error: 'The form contains characters that cannot be stored. Please retype it.' });
    }
    const parsed = await SignupFormSchema.safeParseAsync(form);
    if (!parsed.success) {
      return sendForm(reply, 400, plan, { ...state, error: parsed.error.issues[0]?.message ?? 'Check the form and try again.' });
    }
    const em = orm.em.fork();
    let account: { id: string };
    try {
      account = await createAccount(em, { ...parsed.data, plan });
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'conflict')) throw error;
      // Without e-mail verification, the unique address cannot be hidden; say only that, and where to go.
      return sendForm(reply, 409, plan, {
        ...state,
        error: 'An account with this e-mail address already exists. Sign in instead, or use another address.',
      });
    }
    const session = await createSession(em, account.id, services.clock.now());
    reply.setCookie(cookieName, session.cookieValue, sessionCookieOptions(siteUrl, SESSION_TTL_SEC));
    reply.clearCookie(csrfCookieName, (({ maxAge: _maxAge, ...rest }) => rest)(sessionCookieOptions(siteUrl)));
    return reply.header('Cache-Control', 'no-store').redirect(AFTER_SIGNUP, 303);
  });
}
