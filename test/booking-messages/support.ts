import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import ical, { type VEvent } from 'node-ical';
import { SMTPServer } from 'smtp-server';
import superjson from 'superjson';
import type { TestApp } from '../helpers/app.ts';

export interface ReceivedMail {
  /** The envelope's recipients, as the server accepted them. */
  to: string[];
  parsed: ParsedMail;
  receivedAt: number;
  /** The id the server gave the message in its reply (`250 2.0.0 Ok: queued as <queueId>`, as Postfix answers). */
  queueId: string;
}

export interface MailServer {
  port: number;
  url: string;
  received: ReceivedMail[];
  /** The most messages the server was receiving at once. */
  mostInFlight(): number;
  close(): Promise<void>;
}

export interface MailServerOptions {
  /** A fixed port (to start a server where the service already tries to send). */
  port?: number;
  /** A reply code and text that refuses a recipient (`RCPT TO`), or undefined to accept it. */
  refuseRecipient?: (address: string) => { code: number; text: string } | undefined;
  /** How long to wait before accepting each message's data. */
  delayMs?: number;
}

/** A real SMTP server on 127.0.0.1 (smtp-server) that keeps every message it accepts, parsed with mailparser. */
export async function startMailServer(options: MailServerOptions = {}): Promise<MailServer> {
  const received: ReceivedMail[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const refusal = options.refuseRecipient?.(address.address);
      if (!refusal) return callback();
      const error = Object.assign(new Error(refusal.text), { responseCode: refusal.code });
      return callback(error);
    },
    onData(stream, session, callback) {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      const queueId = randomBytes(5).toString('hex').toUpperCase();
      const done = (error?: Error | null) => {
        inFlight--;
        if (error) callback(error);
        else callback(null, `2.0.0 Ok: queued as ${queueId}`);
      };
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        void simpleParser(Buffer.concat(chunks)).then((parsed) => {
          received.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), parsed, receivedAt: Date.now(), queueId });
          setTimeout(() => done(), options.delayMs ?? 0);
        }, done);
      });
    },
  });
  server.on('error', () => {
    // A client that disconnects mid-session; the server goes on.
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    mostInFlight: () => mostInFlight,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on (yet). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The mails received for one address (To). */
export function mailsTo(server: MailServer, address: string): ReceivedMail[] {
  return server.received.filter((mail) => mail.to.includes(address));
}

/** The invitation of a mail (its text/calendar part), parsed with node-ical. */
export function invitationOf(mail: ReceivedMail): { method: string; event: VEvent; raw: string } {
  const part = mail.parsed.attachments.find((attachment) => attachment.contentType.startsWith('text/calendar'));
  if (!part) throw new Error(`no invitation in "${mail.parsed.subject}"`);
  const raw = part.content.toString('utf8');
  const parsed = ical.sync.parseICS(raw);
  const event = Object.values(parsed).find((component) => component?.type === 'VEVENT') as VEvent;
  const method = /^METHOD:(.+)$/m.exec(raw)?.[1]?.trim() ?? '';
  return { method, event, raw };
}

/** tRPC calls as the public booking page makes them (superjson). */
export function publicTrpc(t: TestApp, ip = '203.0.113.21') {
  const data = <T>(res: { body: { result: { data: { json: unknown } } } }) => res.body.result.data.json as T;
  return {
    book: async (input: unknown) => {
      const res = await t.http.post('/trpc/publicBooking.book').set('X-Forwarded-For', ip).send(superjson.serialize(input) as object);
      if (res.status !== 200) throw new Error(`booking failed: ${res.status} ${JSON.stringify(res.body)}`);
      return data<{ id: string; startAt: string; links: { manage: string } }>(res);
    },
  };
}

export interface MessageView {
  id: string;
  kind: string;
  audience: string;
  recipient: string;
  status: string;
  scheduledFor: string;
  sentAt: string | null;
  attempts: number;
  lastError: string | null;
  serverReply: string | null;
  resentFrom: string | null;
}

/** Open all day, every day: a series can fall on any date. */
const ALL_DAY = [{ start: '00:00', end: '24:00' }];
export const EVERY_DAY = { monday: ALL_DAY, tuesday: ALL_DAY, wednesday: ALL_DAY, thursday: ALL_DAY, friday: ALL_DAY, saturday: ALL_DAY, sunday: ALL_DAY };
const HALF_HOUR = 30 * 60_000;
export const LISBON = 'Europe/Lisbon';

/** `days` from now at `hour` o'clock UTC. */
export function startIn(days: number, hour: number): string {
  const day = new Date(Date.now() + days * 86_400_000);
  day.setUTCHours(hour, 0, 0, 0);
  return day.toISOString();
}

/** A half-hour meeting's time as the invitee's mail writes it (their zone, named). */
export function inLisbon(startAt: string): string {
  const start = Date.parse(startAt);
  const day = new Intl.DateTimeFormat('en-GB', { timeZone: LISBON, weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).format(start);
  const time = (at: number) => new Intl.DateTimeFormat('en-GB', { timeZone: LISBON, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);
  return `${day}, ${time(start)}–${time(start + HALF_HOUR)} (${LISBON})`;
}
