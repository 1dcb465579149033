import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('npm run bench -- --help', () => {
  it('prints the options and stops before touching a database', async () => {
    const { stdout } = await run(process.execPath, ['bench/run.ts', '--help'], { timeout: 20_000 });
    expect(stdout).toContain('--only=');
    expect(stdout).toContain('--rounds=');
  });
});
