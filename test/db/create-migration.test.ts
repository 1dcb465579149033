import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defineEntity, MikroORM, p } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ormConfig } from '../../mikro-orm.config.ts';
import { entities } from '../../src/db/entities.ts';
import { draftMigration } from '../../src/db/entity-drift.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts';

function createMigration(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', 'db:migration:create', '--silent', '--', ...args],
      { cwd: process.cwd(), env: { ...process.env, DATABASE_URL: inject('serverUrl') } },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('npm run db:migration:create', () => {
  let directory: string;

  beforeAll(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'migrations-'));
  });
  afterAll(() => rm(directory, { recursive: true, force: true }));

  it('writes a dated migration with an empty up() when the entities match the migrations', async () => {
    const result = await createMigration('add_reminders', `--dir=${directory}`);
    expect(result.code).toBe(0);
    const file = result.stdout.trim();
    expect(path.dirname(file)).toBe(directory);
    expect(path.basename(file)).toMatch(/^Migration\d{14}_add_reminders\.ts$/);
    const source = await readFile(file, 'utf8');
    const className = path.basename(file, '.ts');
    expect(source).toContain(`export class ${className} extends Migration {`);
    expect(source).toContain(`override name = '${className}';`);
    expect(source).toContain('override up(): void | Promise<void> {\n  }');
    expect(source).not.toContain('addSql');
    expect(result.stderr).toContain('the entities match the migrations');
  });

  it('refuses a missing or malformed name (exit 2, nothing written)', async () => {
    for (const args of [[], ['Add-Reminders'], ['add_reminders', 'extra']]) {
      const result = await createMigration(...args, `--dir=${directory}/refused`);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('usage: npm run db:migration:create');
    }
    await expect(readdir(`${directory}/refused`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  describe('with an entity ahead of the migrations', () => {
    let database: TestDatabase;
    let orm: MikroORM;

    beforeAll(async () => {
      database = await createTestDatabase();
      const withUserAgent = defineEntity({
        name: 'LoginAttempt',
        tableName: 'login_attempt',
        properties: {
          id: p.text().primary(),
          emailKey: p.text(),
          ip: p.text(),
          attemptedAt: p.datetime(),
          userAgent: p.text().nullable(),
        },
      });
      const others = entities.filter((entity) => entity.meta.tableName !== 'login_attempt');
      orm = await MikroORM.init({ ...ormConfig(database.url, { poolMax: 1 }), entities: [...others, withUserAgent] });
    });
    afterAll(async () => {
      await orm.close();
      await database.drop();
    });

    it('writes the entities’ diff, and only it, into up()', async () => {
      const draft = await draftMigration(orm, 'login_attempt_user_agent', directory);
      expect(draft.statements).toEqual(['alter table "login_attempt" add "user_agent" text null']);
      const source = await readFile(draft.path, 'utf8');
      expect(source).toContain('    this.addSql(`alter table "login_attempt" add "user_agent" text null`);\n  }');
      expect(source.match(/addSql/g)).toHaveLength(1);
    });
  });
});
