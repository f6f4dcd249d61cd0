#!/usr/bin/env node
// The `switchboard` command. Runs the compiled CLI; `npm install` builds it (the prepare script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('switchboard: dist/ is missing; run "npm run build" first\n');
  process.exit(1);
}

// `serve` runs with Node flags V8 reads only from the command line; which, and why, is in
// src/lib/serve-flags.ts. Where Node can (`process.execve`, 22.15 and later on Unix), the command
// replaces itself with the same one flagged (and its environment completed, serveEnvironment): same
// process id and streams, one more Node start.
// Elsewhere (Node 20) the embedded database's flag is set at run time instead (decision 0010).
if (process.argv[2] === 'serve' && typeof process.execve === 'function') {
  const { missingNodeFlags, serveEnvironment, serveNodeFlags } = await import('../dist/lib/serve-flags.js');
  const missing = missingNodeFlags(serveNodeFlags(process.env), process.execArgv, process.env.NODE_OPTIONS);
  if (missing.length > 0) {
    const self = fileURLToPath(import.meta.url);
    try {
      process.execve(
        process.execPath,
        [process.execPath, ...process.execArgv, ...missing, self, ...process.argv.slice(2)],
        { ...process.env, ...serveEnvironment(process.env) },
      );
    } catch {
      // Not allowed here (a sandbox, a permission model): V8's defaults, and the flag set at run time, stand.
    }
  }
}

// Loading the code and opening the embedded database would grow V8's young generation to its
// largest size (32 MB by default), which an idle process then keeps. Hold it at its first size
// while starting; `serve` lets it grow again once it is up (src/lib/heap.ts).
v8.setFlagsFromString('--semi-space-growth-factor=1');
// Code that runs while starting runs about once: optimising it buys nothing and costs memory that
// an idle process keeps (the compiler's code, and what its work on V8's background threads leaves
// in their malloc arenas): 4-10 MB measured. `serve` turns it back on once it is up
// (src/lib/heap.ts, decision 0060).
v8.setFlagsFromString('--no-turbofan');
await import(cli.href);
