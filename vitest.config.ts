import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { serviceNodeFlags } from './scripts/service-node-flags.ts';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env: { TZ: 'UTC' },
    pool: 'forks',
    // Vitest's default (one worker less than the cores) runs one file at a time on 2 cores; the files spend much
    // of their time waiting on PostgreSQL, child processes and timers, so two at a time keep both cores busy.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The runtime the service runs on (npm start's Node flags).
    execArgv: serviceNodeFlags(),
  },
});
