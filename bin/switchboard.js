#!/usr/bin/env node
// The `switchboard` command. Runs the compiled CLI; `npm install` builds it (the prepare script).
import { existsSync } from 'node:fs';
import v8 from 'node:v8';

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
