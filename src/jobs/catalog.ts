import { runPeriodically } from './periodic.js';

/** One periodic piece of background work of a domain, run by the worker role (`worker` or `all`). */
export interface PeriodicJob {
  /** Names the job in its error log line. */
  name: string;
  intervalMs: number;
  /**
   * One run. `signal` is aborted when the jobs stop (shutdown): a run that may go on for minutes
   * (retention's batches) returns early rather than hold the shutdown; short ones may ignore it.
   */
  run: (signal: AbortSignal) => Promise<void>;
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
  const running = jobs.map((job) =>
    runPeriodically(
      () => job.run(stopping.signal),
      job.intervalMs,
      (error) => onError(error, job),
    ),
  );
  return {
    async stop() {
      stopping.abort();
      await Promise.all(running.map((job) => job.stop()));
    },
  };
}
