#!/usr/bin/env node
// The `switchboard` command. Runs the compiled CLI; `npm install` builds it (the prepare script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';

// `serve` on the embedded database compiles PGlite's PostgreSQL with V8's baseline WebAssembly
// compiler alone (`--liftoff-only`, decision 0010: ~50 MB less at idle). src/db/embedded.ts sets the
// flag at run time, which Node 20 and 22 honour and Node 24 ignores (its V8 reads it once, from the
// command line). Where Node can (`process.execve`, Node 22.15 and later on Unix), the command
// replaces itself with the same one flagged, in the same process: same id, same streams, one more
// Node start (decision 0060).
const embeddedServe = process.argv[2] === 'serve' && !process.env.DATABASE_URL;
if (embeddedServe && typeof process.execve === 'function' && !process.execArgv.includes('--liftoff-only')) {
  const self = fileURLToPath(import.meta.url);
  try {
    process.execve(process.execPath, [
      process.execPath,
      ...process.execArgv,
      '--liftoff-only',
      self,
      ...process.argv.slice(2),
    ]);
  } catch {
    // Not allowed here (a sandbox, a permission model): the flag set at run time stands.
  }
}

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('switchboard: dist/ is missing; run "npm run build" first\n');
  process.exit(1);
}
// Loading the code and opening the embedded database would grow V8's young generation to its
// largest size (32 MB), which an idle process then keeps. Hold it at its first size while starting;
// `serve` lets it grow again once it is up (src/lib/heap.ts).
v8.setFlagsFromString('--semi-space-growth-factor=1');
// Code that runs while starting runs about once: optimising it buys nothing and costs memory that
// an idle process keeps (the compiler's code, and what its work on V8's background threads leaves
// in their malloc arenas): 4-10 MB measured. `serve` turns it back on once it is up
// (src/lib/heap.ts, decision 0060).
v8.setFlagsFromString('--no-turbofan');
await import(cli.href);
