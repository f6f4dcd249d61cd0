import { defineConfig } from 'vitest/config';
import SlowestFirstSequencer from './test/slowest-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    // expect.poll waits for a browser or a background worker: 1 s (its default) is short on 2 busy cores.
    expect: { poll: { timeout: 10_000, interval: 50 } },
    // A file's beforeAll starts an app (PGlite's WebAssembly compiled, a database loaded) or a browser: with
    // several files at once on two cores, 60 s was seen to run out (decision 0054).
    hookTimeout: 120_000,
    // Each file gets its own database (a PGlite clone or a PostgreSQL database from a template).
    fileParallelism: true,
    // Several files at once, more than the cores: most files mostly wait (server processes started and
    // killed, browsers, timers), and vitest's default (cores - 1) runs one file at a time on two cores.
    // SWITCHBOARD_TEST_WORKERS sets it (CI runs both engines' passes at once, each with fewer); decision 0054.
    maxWorkers: Number(process.env.SWITCHBOARD_TEST_WORKERS ?? 2),
    minWorkers: 1,
    // The longest files first, so that none starts last and runs alone at the end.
    sequence: { sequencer: SlowestFirstSequencer },
    reporters: ['default'],
  },
});
