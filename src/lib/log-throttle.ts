/** The default of `createLogThrottle`'s interval: one line per kind of failure every 10 s. */
export const LOG_THROTTLE_INTERVAL_MS = 10_000;

/**
 * Logs a failure that can repeat on every request (the database away, its pool saturated) once per
 * interval and key, telling how many were left out since the last line: a flood of requests must
 * not become a flood of stack traces (decision 0029). Keys are a small fixed set (a context name).
 */
export function createLogThrottle({
  intervalMs = LOG_THROTTLE_INTERVAL_MS,
  now = Date.now,
}: {
  intervalMs?: number;
  now?: () => number;
} = {}) {
  const windows = new Map<string, { until: number; suppressed: number }>();
  return function logThrottled(key: string, log: (suppressed: number) => void): void {
    const at = now();
    const current = windows.get(key);
    if (current && current.until > at) {
      current.suppressed++;
      return;
    }
    windows.set(key, { until: at + intervalMs, suppressed: 0 });
    log(current?.suppressed ?? 0);
  };
}

export type LogThrottle = ReturnType<typeof createLogThrottle>;
