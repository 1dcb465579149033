/** The e-mail worker as the app starts it: SMTP from SMTP_URL (or none: kept), MAIL_FROM, the retry schedule. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Env, parseDurations } from '../../config/env.ts';
import type { Clock } from '../../lib/clock.ts';
import type { WorkerQuery } from '../../lib/polling-worker.ts';
import { retryPolicyOf } from '../../lib/retry-policy.ts';
import { openSecret } from '../../lib/sealed-secrets.ts';
import { composeMessage, mailSettingsOf, manageUrlOf, type StoredMessage } from './compose.ts';
import { smtpTransport } from './mail-transport.ts';
import { DEFAULT_MAIL_RETRY_DELAYS_MS, startMessageWorker } from './message-worker.ts';

/** What the start log says about e-mail (never the credentials in SMTP_URL). */
export function mailStartLine(env: Pick<Env, 'SMTP_URL'>): string {
  if (!env.SMTP_URL) return 'E-mail is kept, not sent (no SMTP_URL): hosts see each message in the dashboard';
  const url = new URL(env.SMTP_URL);
  return `E-mail is sent through ${url.protocol}//${url.host}`;
}

export function startBookingMessages(options: {
  env: Env;
  query: WorkerQuery;
  clock: Clock;
  /** An EntityManager to open the sealed manage links with. */
  openSecrets: () => EntityManager;
  onError: (error: unknown) => void;
}): { stop(): Promise<void> } {
  const { env } = options;
  const settings = mailSettingsOf(env);
  const transport = env.SMTP_URL ? smtpTransport(env.SMTP_URL) : undefined;
  const compose = async (message: StoredMessage & { manage_link: string | null }) => {
    const token = message.manage_link ? await openSecret(options.openSecrets(), 'booking-manage-link', message.manage_link) : null;
    return composeMessage(message, settings, token ? manageUrlOf(settings.siteUrl, token) : null);
  };
  const worker = startMessageWorker({
    query: options.query,
    clock: options.clock,
    leaseMs: env.MAIL_LEASE_MS,
    retry: retryPolicyOf(env.MAIL_RETRY_SCHEDULE === undefined ? undefined : parseDurations(env.MAIL_RETRY_SCHEDULE), DEFAULT_MAIL_RETRY_DELAYS_MS),
    transport,
    compose,
    onError: options.onError,
  });
  return {
    async stop() {
      await worker.stop();
      transport?.close();
    },
  };
}
