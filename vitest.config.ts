import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // One worker process runs file after file and keeps the modules it imported: each file no longer
    // imports the server's modules anew in a fresh process (decision 0076). Each file still builds its
    // own app and database, and closes them.
    isolate: false,
    testTimeout: 30_000,
    // expect.poll waits for a browser or a background worker: 1 s (its default) is short on 2 busy cores.
    expect: { poll: { timeout: 10_000, interval: 50 } },
    // A file's beforeAll starts an app (PGlite's WebAssembly compiled, a database loaded) or a browser.
    hookTimeout: 120_000,
    // Each file gets its own database (a PGlite clone or a PostgreSQL database from a template).
    fileParallelism: true,
    // vitest's default number of files at once (cores − 1). Two at once on two cores was tried and
    // gained nothing: the suite is bound by CPU, not by waiting (decision 0054).
    reporters: ['default'],
  },
});
