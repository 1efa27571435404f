import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // test/: the service end to end; src/: unit tests colocated with the product they test.
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Real chains, real settlement: generous limits, never used to assert speed (see npm run bench).
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Files of one worker share its module graph: loading the service's modules once per worker
    // instead of once per file takes about 140 s off the suite. Tests therefore leave no global state
    // behind (environment variables, console, timers): each file starts its own chain and service.
    isolate: false,
    // Most of a paid test waits on the chain and the network: two workers even on a 2-core machine
    // (vitest's default there is one).
    maxWorkers: Number(process.env.VITEST_WORKERS ?? Math.max(2, availableParallelism() - 1)),
    globalSetup: ['test/global-setup.ts'],
  },
});
