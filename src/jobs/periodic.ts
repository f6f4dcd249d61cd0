/**
 * Runs `task` every `intervalMs`, never twice at once, until stopped. A failing run is reported and
 * the next one happens as scheduled: periodic work must outlive a database that blinks.
 *
 * A task that knows when its work is next due returns how many milliseconds away that is: the next
 * run comes then, and never later than `intervalMs`. `wake()` runs it at once (after the run under
 * way, if any): for work that news announces, so that the pause between runs can be long.
 */
export function runPeriodically(
  task: () => Promise<void> | Promise<number | undefined>,
  intervalMs: number,
  onError: (error: unknown) => void,
  { runAtStart = false }: { runAtStart?: boolean } = {},
): { stop(): Promise<void>; wake(): void } {
  let stopped = false;
  let running = false;
  let wokenWhileRunning = false;
  let current: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const schedule = (delayMs: number) => {
    clearTimeout(timer);
    timer = setTimeout(tick, delayMs);
  };
  const pauseAfter = (nextDueInMs: unknown) =>
    typeof nextDueInMs === 'number' && Number.isFinite(nextDueInMs)
      ? Math.min(Math.max(0, Math.ceil(nextDueInMs)), intervalMs)
      : intervalMs;
  function tick() {
    if (stopped) return;
    if (running) {
      wokenWhileRunning = true;
      return;
    }
    running = true;
    clearTimeout(timer);
    current = task()
      .then(pauseAfter, (error) => {
        onError(error);
        return intervalMs;
      })
      .then((pauseMs) => {
        running = false;
        if (stopped) return;
        schedule(wokenWhileRunning ? 0 : pauseMs);
        wokenWhileRunning = false;
      });
  }
  schedule(runAtStart ? 0 : intervalMs);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
    wake: tick,
  };
}
