import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real chains, real settlement: generous limits, never used to assert speed (see npm run bench).
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
