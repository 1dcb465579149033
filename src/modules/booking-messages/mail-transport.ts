/**
 * Sending over SMTP with nodemailer (a pool of connections per instance), and what a failure means: an SMTP
 * 5xx (a refused recipient, a refused message, refused credentials) is permanent; an SMTP 4xx, a refused or cut
 * connection, a timeout or a TLS failure is temporary and retried. The server's reply is kept: as the error, or
 * on success (`250 … queued as …`) as the handle to the message in the server's own log. nodemailer is loaded
 * only by an instance that sends (about 5 MB of heap the others do not carry).
 */
import { MAIL_DELIVERY } from '../../config/timeouts.ts';
import type { ComposedMail } from './compose.ts';

export type SendOutcome = { kind: 'sent'; reply: string | null } | { kind: 'temporary' | 'permanent'; error: string };

/** Replies are kept whole up to this length (a server's reply is one line; a hostile one is not stored whole). */
const MAX_REPLY_LENGTH = 1000;

export interface MailTransport {
  send(mail: ComposedMail): Promise<SendOutcome>;
  close(): void;
}

/** Errors nodemailer raises before the server said anything about this message: our side, never retried. */
const LOCAL_ERRORS = new Set(['EENVELOPE', 'EMESSAGE', 'ESTREAM']);

/** What a nodemailer error means for the message. */
export function classifySendError(error: unknown): SendOutcome {
  const failure = error as { responseCode?: unknown; response?: unknown; code?: unknown; message?: unknown };
  const reply = typeof failure.response === 'string' ? failure.response : String(failure.message ?? error);
  const error_ = reply.slice(0, MAX_REPLY_LENGTH);
  if (typeof failure.responseCode === 'number') {
    return { kind: failure.responseCode >= 500 ? 'permanent' : 'temporary', error: error_ };
  }
  return { kind: LOCAL_ERRORS.has(String(failure.code)) ? 'permanent' : 'temporary', error: error_ };
}

export function smtpTransport(smtpUrl: string): MailTransport {
  const url = new URL(smtpUrl);
  const loading = import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport({
    pool: true,
    maxConnections: MAIL_DELIVERY.connections,
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
    secure: url.protocol === 'smtps:',
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    connectionTimeout: MAIL_DELIVERY.connectMs,
    greetingTimeout: MAIL_DELIVERY.greetingMs,
    socketTimeout: MAIL_DELIVERY.socketMs,
  }));
  return {
    async send(mail) {
      try {
        const transporter = await loading;
        const info = await transporter.sendMail({
          from: mail.from,
          to: mail.to,
          subject: mail.subject,
          messageId: `<${mail.messageId}>`,
          text: mail.text,
          html: mail.html,
          ...(mail.invitation ? { icalEvent: { method: mail.invitation.method, filename: 'invite.ics', content: mail.invitation.content } } : {}),
        });
        // One recipient per message: a refused recipient is a refused message.
        if (info.rejected.length > 0) return { kind: 'permanent', error: String(info.response ?? 'the recipient was refused') };
        return { kind: 'sent', reply: typeof info.response === 'string' ? info.response.slice(0, MAX_REPLY_LENGTH) : null };
      } catch (error) {
        return classifySendError(error);
      }
    },
    close: () => void loading.then((transporter) => transporter.close(), () => undefined),
  };
}
