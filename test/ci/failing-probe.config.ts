import { defineConfig } from 'vitest/config';
import suite from '../../vitest.config.ts';

/** The suite's own configuration (global setup included), running only the deliberately failing probe. */
export default defineConfig({
  ...suite,
  test: { ...suite.test, include: ['test/ci/deliberately-failing.probe.ts'] },
});
