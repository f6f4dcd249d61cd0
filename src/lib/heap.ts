import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Once `serve` is up: one full garbage collection frees what starting left behind (module sources,
 * the database's WebAssembly bytes, migration SQL) before the server idles, and V8's young
 * generation, held at its first size while starting (bin/switchboard.js), may grow again under load
 * (2 is V8's default growth factor). Measured at idle: the collection ~5-10 MB, the held young
 * generation ~20 MB (decision 0010). Node has no API for a collection: a fresh context made while
 * --expose-gc is set has a `gc` function (what the expose-gc package does).
 * The optimising compiler, off while starting (bin/switchboard.js), is turned back on: hot code is
 * optimised from here on as in any Node process (decision 0060).
 */
export function settleHeapAfterStart(): void {
  v8.setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  v8.setFlagsFromString('--no-expose-gc');
  collect();
  v8.setFlagsFromString('--semi-space-growth-factor=2');
  v8.setFlagsFromString('--turbofan');
}
