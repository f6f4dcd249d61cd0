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
 * Once `serve` is up: one full garbage collection frees what starting left behind (module sources,
 * the database's WebAssembly bytes, migration SQL) before the server idles, and V8's young
 * generation, held at its first size while starting (bin/switchboard.js), may grow again under load
 * (2 is V8's default growth factor). Measured at idle: the collection ~5-10 MB, the held young
 * generation ~20 MB (decision 0010). Node has no API for a collection: a fresh context made while
 * --expose-gc is set has a `gc` function (what the expose-gc package does).
 * The optimising compiler, off while starting (bin/switchboard.js), is turned back on: hot code is
 * optimised from here on as in any Node process (decision 0060).
 * From here on no allocation site is moved to the old generation (NO_PRETENURING, decision 0111),
 * unless the operator named the flag, either way, on Node's command line or in NODE_OPTIONS.
 */
export function settleHeapAfterStart(): void {
  v8.setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  v8.setFlagsFromString('--no-expose-gc');
  collect();
  v8.setFlagsFromString('--semi-space-growth-factor=2');
  v8.setFlagsFromString('--turbofan');
  for (const flag of missingNodeFlags([NO_PRETENURING], process.execArgv, process.env.NODE_OPTIONS)) {
    v8.setFlagsFromString(flag);
  }
}
