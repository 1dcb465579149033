/** The e-mail workers' settings as the app starts them: SMTP from SMTP_URL (or none: kept), MAIL_FROM, the retry schedule. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Env, parseDurations } from '../../config/env.ts';
import type { Clock } from '../../lib/clock.ts';
import type { WorkerQuery } from '../../lib/polling-worker.ts';
import { type RetryPolicy, retryPolicyOf } from '../../lib/retry-policy.ts';
import { openSecret } from '../../lib/sealed-secrets.ts';
import { composeMessage, mailSettingsOf, manageLinksOf, type StoredMessage } from './compose.ts';
import { type MailTransport, smtpTransport } from './mail-transport.ts';
import { DEFAULT_MAIL_RETRY_DELAYS_MS, startMessageWorker } from './message-worker.ts';

/** What the start log says about e-mail (never the credentials in SMTP_URL). */
export function mailStartLine(env: Pick<Env, 'SMTP_URL'>): string {
  if (!env.SMTP_URL) {
    return 'E-mail is kept, not sent (no SMTP_URL): hosts see each message in the dashboard; password reset mail: npm run -s cli -- mail list';
  }
  const url = new URL(env.SMTP_URL);
  return `E-mail is sent through ${url.protocol}//${url.host}`;
}

/** The one SMTP transport of an instance (its pool of connections), shared by every kind of mail; none without SMTP_URL. */
export function mailTransportOf(env: Pick<Env, 'SMTP_URL'>): MailTransport | undefined {
  return env.SMTP_URL ? smtpTransport(env.SMTP_URL) : undefined;
}

/** The mail retry schedule: MAIL_RETRY_SCHEDULE exactly, or the default one with jitter. */
export function mailRetryPolicy(env: Pick<Env, 'MAIL_RETRY_SCHEDULE'>): RetryPolicy {
  return retryPolicyOf(env.MAIL_RETRY_SCHEDULE === undefined ? undefined : parseDurations(env.MAIL_RETRY_SCHEDULE), DEFAULT_MAIL_RETRY_DELAYS_MS);
}

/** The bookings' e-mail worker; the caller owns `transport` (and closes it after stopping every worker using it). */
export function startBookingMessages(options: {
  env: Env;
  query: WorkerQuery;
  clock: Clock;
  transport: MailTransport | undefined;
  /** An EntityManager to open the sealed manage links with. */
  openSecrets: () => EntityManager;
  onError: (error: unknown) => void;
}): { stop(): Promise<void> } {
  const { env, transport } = options;
  const settings = mailSettingsOf(env);
  const compose = async (message: StoredMessage & { manage_link: string | null }) => {
    const token = message.manage_link ? await openSecret(options.openSecrets(), 'booking-manage-link', message.manage_link) : null;
    const links = manageLinksOf(settings.siteUrl, message, token);
    return composeMessage(message, settings, links.url, links.occurrences);
  };
  const worker = startMessageWorker({
    query: options.query,
    clock: options.clock,
    leaseMs: env.MAIL_LEASE_MS,
    retry: mailRetryPolicy(env),
    transport,
    compose,
    onError: options.onError,
  });
  return worker;
}
