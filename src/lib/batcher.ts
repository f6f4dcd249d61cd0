export interface BatcherOptions {
  /** Items per statement at most, default 200. */
  maxBatch?: number;
  /** Batches in flight at once, default 1: the next batch collects while one is in flight. */
  concurrency?: number;
  /**
   * How long the first item of a batch waits for others, default 0 (the next turn of the event
   * loop). For work nobody waits on, a few ms make batches larger and statements fewer.
   */
  delayMs?: number;
  /**
   * Whether a batch's failure says the next batch would fail as well (the database is away): the
   * items waiting behind it then fail with the same error at once rather than each wait out a
   * timeout of its own. Default: never.
   */
  failsTheRest?: (error: unknown) => boolean;
}

/**
 * Groups work that arrives at the same time into one call of `run` (one SQL statement for many
 * rows), the way a database groups commits. An item waits at most until the batches already in
 * flight finish; alone, it runs on the next turn of the event loop. `run` returns one result per
 * item, in order; if it throws, every item of that batch fails with the error.
 */
export function createBatcher<In, Out>(run: (items: In[]) => Promise<Out[]>, options: BatcherOptions = {}) {
  const maxBatch = options.maxBatch ?? 200;
  const concurrency = options.concurrency ?? 1;
  const delayMs = options.delayMs ?? 0;
  let queue: { item: In; resolve: (out: Out) => void; reject: (error: unknown) => void }[] = [];
  let inFlight = 0;
  let scheduled = false;

  const pump = () => {
    scheduled = false;
    while (inFlight < concurrency && queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      inFlight++;
      run(batch.map((entry) => entry.item))
        .then(
          (results) => {
            for (const [i, entry] of batch.entries()) entry.resolve(results[i] as Out);
          },
          (error) => {
            for (const entry of batch) entry.reject(error);
            if (options.failsTheRest?.(error)) for (const entry of queue.splice(0)) entry.reject(error);
          },
        )
        .finally(() => {
          inFlight--;
          pump();
        });
    }
  };

  return {
    add(item: In): Promise<Out> {
      return new Promise<Out>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (!scheduled && inFlight < concurrency) {
          scheduled = true;
          if (delayMs > 0) setTimeout(pump, delayMs);
          else setImmediate(pump);
        }
      });
    },
  };
}
