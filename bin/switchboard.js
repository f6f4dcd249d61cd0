#!/usr/bin/env node
// The `switchboard` command. Runs the compiled CLI; `npm install` builds it (the prepare script).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('switchboard: dist/ is missing; run "npm run build" first\n');
  process.exit(1);
}
await import(cli.href);
