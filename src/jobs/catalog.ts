import { runPeriodically } from './periodic.js';

/** One periodic piece of background work of a domain, run by the worker role (`worker` or `all`). */
export interface PeriodicJob {
  /** Names the job in its error log line. */
  name: string;
  /** The pause between runs; for a job that says when its work is next due, the longest one. */
  intervalMs: number;
  /**
   * One run. `signal` is aborted when the jobs stop (shutdown): a run that may go on for minutes
   * (retention's batches) returns early rather than hold the shutdown; short ones may ignore it.
   * A run may return in how many milliseconds its work is next due (decision 0086).
   */
  run: (signal: AbortSignal) => Promise<void> | Promise<number | undefined>;
  /**
   * For work that news announces (decision 0086): calls `wake` on each piece of news, and the job
   * runs at once. Such a job also runs when the jobs start.
   */
  wakeOn?: (wake: () => void) => void;
}

/**
 * Runs every job of the catalog, each on its own timer, never twice at once; `stop` waits for the
 * runs under way. Stopped first at shutdown, so no new work starts while the rest drains
 * (docs/architecture.md, "Shutdown order").
 */
export function startJobs(
  jobs: readonly PeriodicJob[],
  onError: (error: unknown, job: PeriodicJob) => void,
): { stop(): Promise<void> } {
  const stopping = new AbortController();
  const running = jobs.map((job) => {
    const runner = runPeriodically(
      () => job.run(stopping.signal),
      job.intervalMs,
      (error) => onError(error, job),
      { runAtStart: job.wakeOn !== undefined },
    );
    job.wakeOn?.(runner.wake);
    return runner;
  });
  return {
    async stop() {
      stopping.abort();
      await Promise.all(running.map((job) => job.stop()));
    },
  };
}
