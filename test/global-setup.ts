import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { initOrm, migrate } from '../src/db/orm.ts';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { BROWSER_TEST_SUFFIX, type ChromiumInstall, provideChromium } from './helpers/chromium.ts';
import { databaseUrl } from './helpers/database-url.ts';
import { RADICALE_TEST_MARKER } from './helpers/radicale.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    serverUrl: string;
    templateDatabase: string;
    /** The web app built from the current source, or '' when the run has no browser tests. */
    webRoot: string;
    /** The Chromium the browser tests start, or null when the run has none. */
    chromium: ChromiumInstall | null;
  }
}

/**
 * One PostgreSQL server for the run (DATABASE_URL's, or an embedded one), and one migrated template
 * database from which every test file clones its own database, so files run in parallel and in any order.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const testFiles = await selectedTestFiles(project);
  const withBrowser = testFiles.some((file) => file.endsWith(BROWSER_TEST_SUFFIX));
  if (testFiles.some((file) => path.basename(file).includes(RADICALE_TEST_MARKER))) await ensureRadicale();
  // Unpacked here, once, rather than by each test file; a missing or broken Chromium is said before anything
  // runs, so a newcomer's first `npm test` explains itself instead of failing late.
  const chromium = withBrowser ? await provideChromium() : null;
  const webRoot = withBrowser ? await buildWebApp() : '';
  const embedded = process.env.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres(path.resolve('.data/test'), (line) => console.error(line));
  const serverUrl = process.env.DATABASE_URL ?? embedded!.url;
  const templateDatabase = `test_template_${randomBytes(4).toString('hex')}`;

  await adminQuery(serverUrl, `create database ${templateDatabase}`);
  const orm = await initOrm(databaseUrl(serverUrl, templateDatabase), { poolMax: 2 });
  await migrate(orm);
  await orm.close();

  project.provide('serverUrl', serverUrl);
  project.provide('templateDatabase', templateDatabase);
  project.provide('webRoot', webRoot);
  project.provide('chromium', chromium);

  return async () => {
    if (webRoot) rmSync(webRoot, { recursive: true, force: true });
    await dropLeftovers(serverUrl, templateDatabase);
    await embedded?.stop();
  };
}

/** The files this run includes, after the command line's file filters and excludes. */
async function selectedTestFiles(project: TestProject): Promise<string[]> {
  // The CLI's file filters are not public API; without them every included file counts.
  const filters = (project.vitest as { filenamePattern?: string[] }).filenamePattern;
  const { testFiles } = await project.globTestFiles(filters);
  return testFiles;
}

/**
 * The CalDAV tests run the Debian `radicale` package. On a fresh machine of this kind (Debian, as root) it is
 * installed here, so `npm test` stays the one command; elsewhere the tests' own error says what is missing.
 */
async function ensureRadicale(): Promise<void> {
  const run = promisify(execFile);
  const found = await run('sh', ['-c', 'command -v radicale']).then(() => true, () => false);
  if (found || process.getuid?.() !== 0) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => run('apt-get', ['install', '-y', '-q', 'radicale'], { env, timeout: 300_000 });
  // A machine whose package lists were never fetched knows no `radicale` yet.
  await install().catch(async () => {
    await run('apt-get', ['update', '-q'], { env, timeout: 300_000 });
    await install();
  });
}

/** Builds the web app from the current source once per run, so browser tests never see a stale dist/. */
async function buildWebApp(): Promise<string> {
  const outDir = mkdtempSync(path.join(tmpdir(), 'web-build-'));
  await promisify(execFile)(
    process.execPath,
    [path.resolve('node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'],
    { cwd: path.resolve('.'), timeout: 120_000 },
  );
  return outDir;
}

async function adminQuery(serverUrl: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

async function dropLeftovers(serverUrl: string, templateDatabase: string): Promise<void> {
  const suffix = templateDatabase.replace('test_template_', '');
  const { rows } = await adminQuery(
    serverUrl,
    `select datname from pg_database where datname like 'test\\_%' and datname like '%${suffix}%'`,
  );
  for (const { datname } of rows as { datname: string }[]) {
    await adminQuery(serverUrl, `drop database if exists ${datname} with (force)`);
  }
}
