import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { missingNodeFlags } from './serve-flags.js';

/**
 * V8 moves the objects of an allocation site (one `{...}` or `[...]` in the code) to allocating them
 * straight in the old generation once most of them outlive two young collections. A refusal held
 * about a second (decision 0029) outlives them, so a flood of refusals turned the request path's own
 * sites to the old generation, and V8 does not turn them back: for the rest of the process's life,
 * every young object such a request object points to was kept by it until the next full collection.
 * Measured after one flood: 1.7 MB instead of 0.2 MB promoted by each young collection, 16 µs instead
 * of 6-8 µs of young collections per accepted call, about a sixth fewer calls a second (decision 0111).
 */
export const NO_PRETENURING = '--no-allocation-site-pretenuring';

/**
 * On PostgreSQL, V8 lets the old generation grow to four times what a full collection left alive
 * before it marks it again (V8 chooses from 1.1 to 4 by its own measure of the collector's speed).
 * V8 counts the buffers allocated since the last full collection (each provider report's 60-120 KB
 * body, and copies of it) against that room, and starts marking once less than a young generation
 * is left: under full provider load, at about twice the live size, that was a full collection every
 * 150-200 ms. With four times: one every second or two, and 12 % less of our CPU per Retell report
 * (decision 0115). Not on the embedded database, whose idle budget is tighter (decision 0010).
 */
export const OLD_GENERATION_GROWTH = '--heap-growing-percent=300';

/**
 * The V8 flags `serve` sets once it is up, at run time (V8 reads each where it uses it, on every
 * Node version): NO_PRETENURING, and on PostgreSQL OLD_GENERATION_GROWTH, each unless the operator
 * named it, either way, on Node's command line or in `NODE_OPTIONS`.
 */
export function runtimeHeapFlags({
  databaseUrl,
  execArgv = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS,
}: {
  databaseUrl: string | undefined;
  execArgv?: string[];
  nodeOptions?: string | undefined;
}): string[] {
  const wanted = databaseUrl ? [NO_PRETENURING, OLD_GENERATION_GROWTH] : [NO_PRETENURING];
  return missingNodeFlags(wanted, execArgv, nodeOptions);
}

/**
 * Once `serve` is up: one full garbage collection frees what starting left behind (module sources,
 * the database's WebAssembly bytes, migration SQL) before the server idles, and V8's young
 * generation, held at its first size while starting (bin/switchboard.js), may grow again under load
 * (2 is V8's default growth factor). Measured at idle: the collection ~5-10 MB, the held young
 * generation ~20 MB (decision 0010). Node has no API for a collection: a fresh context made while
 * --expose-gc is set has a `gc` function (what the expose-gc package does).
 * The optimising compiler, off while starting (bin/switchboard.js), is turned back on: hot code is
 * optimised from here on as in any Node process (decision 0060).
 * From here on no allocation site is moved to the old generation (NO_PRETENURING, decision 0111)
 * and, on PostgreSQL, the old generation grows further between full collections
 * (OLD_GENERATION_GROWTH, decision 0115), unless the operator named the flag, either way, on Node's
 * command line or in NODE_OPTIONS.
 */
export function settleHeapAfterStart({ databaseUrl }: { databaseUrl: string | undefined }): void {
  // Before the collection, whose new limit is the first to follow OLD_GENERATION_GROWTH.
  for (const flag of runtimeHeapFlags({ databaseUrl })) v8.setFlagsFromString(flag);
  v8.setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  v8.setFlagsFromString('--no-expose-gc');
  collect();
  v8.setFlagsFromString('--semi-space-growth-factor=2');
  v8.setFlagsFromString('--turbofan');
}
