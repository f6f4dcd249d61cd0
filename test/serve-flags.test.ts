import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/app.js';
import { until } from './helpers/wait.js';

// `switchboard serve` on the embedded database, started as the README starts it (the built
// bin/switchboard.js): where Node has process.execve it replaces itself with the same command
// flagged --liftoff-only, which Node 24's V8 takes only from the command line (decision 0060).

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('serve on the embedded database', () => {
  it('runs PGlite with --liftoff-only from the command line where Node can re-execute itself, in the same process', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'switchboard-flags-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SWITCHBOARD_DATA_DIR: dataDir,
    };
    for (const name of ['DATABASE_URL', 'SWITCHBOARD_ROLE', 'NODE_OPTIONS']) delete env[name];
    const child = spawn(process.execPath, ['bin/switchboard.js', 'serve'], { cwd: ROOT, env, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    cleanups.push(async () => {
      child.kill('SIGTERM');
      await exited;
    });
    await until(
      'the server to answer /healthz',
      async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok === true,
      60_000,
    );

    // The data dir's lock names the process serving it: the one this test started.
    const owner = Number.parseInt(await readFile(path.join(dataDir, 'switchboard.lock'), 'utf8'), 10);
    expect(owner).toBe(child.pid);
    const argv = (await readFile(`/proc/${owner}/cmdline`, 'utf8')).split('\0').filter(Boolean);
    expect(argv.includes('--liftoff-only')).toBe(typeof (process as { execve?: unknown }).execve === 'function');
    const [script = '', command] = argv.slice(-2);
    expect(path.resolve(ROOT, script)).toBe(path.join(ROOT, 'bin/switchboard.js'));
    expect(command).toBe('serve');
  }, 90_000);
});
