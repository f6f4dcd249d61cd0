import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    // expect.poll waits for a browser or a background worker: 1 s (its default) is short on 2 busy cores.
    expect: { poll: { timeout: 10_000, interval: 50 } },
    hookTimeout: 60_000,
    // Each file gets its own database (a PGlite clone or a PostgreSQL database from a template).
    fileParallelism: true,
    reporters: ['default'],
  },
});
