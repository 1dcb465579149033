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
    // The runtime the service runs on (npm start's Node flags).
    execArgv: serviceNodeFlags(),
  },
});
