import { z } from 'zod';

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  SITE_URL: z.url().optional(),
  DATABASE_URL: z.string().min(1).optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  REDIS_URL: z.string().min(1).optional(),
  /** Which proxies' X-Forwarded-For to believe: unset = none (a client could otherwise spoof its address). */
  TRUST_PROXY: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * After SIGTERM, how long the instance keeps serving while /readyz already fails (`2s`, `500ms`; `0s` for none),
   * so that load balancers stop sending before the listener closes. Milliseconds once parsed.
   */
  SHUTDOWN_DELAY: z
    .string()
    .default('2s')
    .refine((value) => parseDuration(value) !== undefined, 'must be a duration such as 2s or 500ms')
    .transform((value) => parseDuration(value)!),
  /** Once the listener has closed, how long requests in flight may take to finish before their connections are cut. */
  DRAIN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /**
   * How many instances share the rate-limit counters: while the counter store is down, each admits 1/N of every
   * budget (rounded down) from its own memory, so that together they never admit more than the budget.
   */
  RATE_LIMIT_INSTANCES: z.coerce.number().int().min(1).max(10_000).default(1),
  /** How long a booking waits for its hosts' calendars under contention before a 409 (read by config/timeouts.ts). */
  BOOKING_WAIT_MS: z.coerce.number().int().min(1).max(60_000).default(2_000),
  /** Browser origins besides SITE_URL's that may call /mcp (comma-separated, e.g. `https://inspector.example`). */
  MCP_ALLOWED_ORIGINS: z
    .string()
    .optional()
    .refine((value) => listOf(value).every(isOrigin), 'must be comma-separated origins such as https://app.example'),
  /**
   * Who may frame the booking pages (/book/…, /embed.js's iframes): a CSP `frame-ancestors` source list such as
   * `https://www.example.com https://*.example.org`; `*` (the default) is any site, `'none'` no site.
   */
  BOOKING_FRAME_ANCESTORS: z
    .string()
    .trim()
    .min(1)
    .default('*')
    .refine((value) => value.split(/\s+/).every(isFrameSource), "must be space-separated origins, `*`, `'self'` or `'none'`"),
  /** Lets webhooks use http:// and reach local and private addresses: for development and tests only. */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
  /** The plan a self-service sign-up (/signup) gives a new account; `off` turns sign-up off (404). */
  SIGNUP_PLAN: z.enum(['team', 'pro', 'free', 'off']).default('team'),
  /** The delays between a webhook's attempts (e.g. `1s,2s,3s`), exact; unset: 5s,5m,30m,2h,5h,10h,10h with jitter. */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .optional()
    .refine((value) => value === undefined || parseDurations(value) !== undefined, 'must be comma-separated durations such as 5s,5m,2h'),
  /**
   * How long a claimed webhook delivery is kept from other instances (and how soon one whose instance died is
   * tried again). Keep it above the 10 s an attempt may take; tests shorten it to restart quickly.
   */
  WEBHOOK_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  /** Lets calendar feeds use http:// and reach local and private addresses: for development and tests only. */
  CALENDAR_ALLOW_PRIVATE_NETWORKS: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
  /** How often each connected calendar is synced in the background (`10m`, `30s`). Milliseconds once parsed. */
  CALENDAR_SYNC_INTERVAL: z
    .string()
    .default('10m')
    .refine((value) => (parseDuration(value) ?? 0) >= 1000, 'must be a duration of at least 1s, such as 10m or 30s')
    .transform((value) => parseDuration(value)!),
  /** A booking first refreshes (waiting at most 2 s) a host's calendar last synced longer ago than this. Milliseconds once parsed. */
  CALENDAR_MAX_STALENESS: z
    .string()
    .default('15m')
    .refine((value) => parseDuration(value) !== undefined, 'must be a duration such as 15m or 30s')
    .transform((value) => parseDuration(value)!),
  /**
   * How long a slot hold keeps its slot for the caller who made it (`10m`, `20s`; at least 1s, at most 30m). A
   * hold left longer would keep an invitee's time from everyone else. Milliseconds once parsed.
   */
  SLOT_HOLD_TTL: z
    .string()
    .default('10m')
    .refine((value) => {
      const ms = parseDuration(value);
      return ms !== undefined && ms >= 1000 && ms <= 30 * 60_000;
    }, 'must be a duration from 1s to 30m, such as 10m or 20s')
    .transform((value) => parseDuration(value)!),
  /** The SMTP server e-mail goes through (`smtp://` or `smtps://`, credentials in the URL); unset: e-mail is kept, not sent. */
  SMTP_URL: z
    .string()
    .optional()
    .refine((value) => value === undefined || isSmtpUrl(value), 'must be an smtp:// or smtps:// URL such as smtp://user:pass@mail.example:587'),
  /** The From of outgoing e-mail (`Name <address>` or an address); default `Scheduling <no-reply@HOST>`, HOST from SITE_URL. */
  MAIL_FROM: z
    .string()
    .trim()
    .min(1)
    .max(320)
    .optional()
    .refine((value) => value === undefined || isMailbox(value), 'must be an address or `Name <address>`, e.g. Scheduling <no-reply@scheduling.example>'),
  /** The delays between a message's attempts after temporary failures (e.g. `1s,2s`), exact; unset: 1m,5m,15m,1h,3h,6h,12h with jitter. */
  MAIL_RETRY_SCHEDULE: z
    .string()
    .optional()
    .refine((value) => value === undefined || parseDurations(value) !== undefined, 'must be comma-separated durations such as 1m,5m,1h'),
  /** How long a claimed message is kept from other instances (and how soon one whose instance died is tried again). */
  MAIL_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
});

const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** `5s,5m,2h` as milliseconds; undefined when any entry is not a duration. */
export function parseDurations(value: string): number[] | undefined {
  const delays = listOf(value).map((entry) => {
    const match = /^(\d+)(ms|s|m|h)$/.exec(entry);
    return match ? Number(match[1]) * DURATION_UNITS_MS[match[2] as keyof typeof DURATION_UNITS_MS] : Number.NaN;
  });
  return delays.length > 0 && delays.every(Number.isFinite) ? delays : undefined;
}

function isSmtpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** `address@host` or `Display Name <address@host>`, without line breaks (it becomes a header). */
function isMailbox(value: string): boolean {
  const address = /^[^\s<>@"]+@[^\s<>@]+$/;
  const named = /^(.*?)\s*<([^<>]+)>$/.exec(value);
  if (/[\r\n]/.test(value)) return false;
  return named ? address.test(named[2]!) : address.test(value);
}

/** One duration (`2s`, `500ms`) as milliseconds; undefined when it is not one. */
export function parseDuration(value: string): number | undefined {
  const delays = parseDurations(value);
  return delays?.length === 1 ? delays[0] : undefined;
}

function listOf(value: string | undefined): string[] {
  return (value ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
}

function isOrigin(value: string): boolean {
  try {
    return new URL(value).origin === value.replace(/\/+$/, '');
  } catch {
    return false;
  }
}

/** The origins a browser may call /mcp from (DNS-rebinding protection): SITE_URL's and MCP_ALLOWED_ORIGINS. */
export function mcpAllowedOrigins(env: Env): Set<string> {
  return new Set([new URL(env.SITE_URL).origin, ...listOf(env.MCP_ALLOWED_ORIGINS).map((entry) => new URL(entry).origin)]);
}

/** One source of a `frame-ancestors` list: nothing that could end the directive or the header. */
function isFrameSource(source: string): boolean {
  return ["*", "'self'", "'none'"].includes(source) || /^(https?:\/\/)?(\*\.)?[a-z0-9.-]+(:(\d+|\*))?$/i.test(source) || /^https?:$/.test(source);
}

export type Env = z.infer<typeof envSchema> & { SITE_URL: string; MAIL_FROM: string };

/** Fastify's trustProxy from TRUST_PROXY: `true` (any proxy) or a comma-separated list of addresses/CIDRs. */
export function trustProxySetting(value: string | undefined): boolean | string[] {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return value.split(',').map((entry) => entry.trim()).filter(Boolean);
}

/** Parses process.env once; an invalid environment stops the process at boot with a clear message. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    throw new Error(`Invalid environment: ${z.prettifyError(parsed.error)}`);
  }
  const env = parsed.data;
  const siteUrl = (env.SITE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
  return { ...env, SITE_URL: siteUrl, MAIL_FROM: env.MAIL_FROM ?? `Scheduling <no-reply@${new URL(siteUrl).hostname}>` };
}
