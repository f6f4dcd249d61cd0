/**
 * Runs `task` every `intervalMs`, never twice at once, until stopped. A failing run is reported and
 * the next one happens as scheduled: periodic work must outlive a database that blinks.
 */
export function runPeriodically(
  task: () => Promise<void>,
  intervalMs: number,
  onError: (error: unknown) => void,
): { stop(): Promise<void> } {
  let stopped = false;
  let current: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const tick = () => {
    current = task()
      .catch(onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, intervalMs);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
