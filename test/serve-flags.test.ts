import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { missingNodeFlags, serveEnvironment, serveNodeFlags } from '../src/lib/serve-flags.js';
import { freePort } from './helpers/app.js';
import { createTestDatabase } from './helpers/database.js';
import { until } from './helpers/wait.js';

// `switchboard serve` started as the README starts it (the built bin/switchboard.js): where Node has
// process.execve it replaces itself with the same command flagged with what V8 reads only from the
// command line: --liftoff-only on the embedded database (decision 0060), a larger young generation
// on PostgreSQL (decision 0063); and on the embedded database with at most two malloc arenas, which
// glibc reads only when a process starts (decision 0072).

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const canReexecute = typeof (process as { execve?: unknown }).execve === 'function';
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/**
 * The built command, `node bin/switchboard.js serve`, with `env` beside the machine's: its command
 * line and environment once it answers.
 */
async function serveAndReadCommandLine(
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; argv: string[]; environ: string[] }> {
  const port = await freePort();
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  for (const name of ['DATABASE_URL', 'SWITCHBOARD_ROLE', 'NODE_OPTIONS', 'MALLOC_ARENA_MAX']) delete childEnv[name];
  const child = spawn(process.execPath, ['bin/switchboard.js', 'serve'], {
    cwd: ROOT,
    env: { ...childEnv, ...env },
    stdio: 'ignore',
  });
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
  const argv = (await readFile(`/proc/${child.pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
  const [script = '', command] = argv.slice(-2);
  expect(path.resolve(ROOT, script)).toBe(path.join(ROOT, 'bin/switchboard.js'));
  expect(command).toBe('serve');
  const environ = (await readFile(`/proc/${child.pid}/environ`, 'utf8')).split('\0').filter(Boolean);
  return { child, argv, environ };
}

describe('the flags serve runs with', () => {
  it('are --liftoff-only on the embedded database and a larger young generation on PostgreSQL', () => {
    expect(serveNodeFlags({})).toEqual(['--liftoff-only']);
    expect(serveNodeFlags({ DATABASE_URL: 'postgres://127.0.0.1/x' })).toEqual(['--max-semi-space-size=32']);
  });

  it('are added only where Node was not given them, by name, on its command line or in NODE_OPTIONS', () => {
    const wanted = ['--max-semi-space-size=32'];
    expect(missingNodeFlags(wanted, [])).toEqual(wanted);
    expect(missingNodeFlags(wanted, ['--inspect', '--enable-source-maps'], '--no-warnings')).toEqual(wanted);
    // The operator's own size wins, however V8's name is written.
    expect(missingNodeFlags(wanted, ['--max-semi-space-size=16'])).toEqual([]);
    expect(missingNodeFlags(wanted, ['--max_semi_space_size=8'])).toEqual([]);
    expect(missingNodeFlags(wanted, [], '  --trace-warnings   --max-semi-space-size=64 ')).toEqual([]);
    expect(missingNodeFlags(['--liftoff-only'], ['--liftoff-only'])).toEqual([]);
    // A flag whose name merely starts like the wanted one is another flag.
    expect(missingNodeFlags(wanted, ['--max-semi-space-size-extra=1'])).toEqual(wanted);
  });

  it('take a boolean flag and its --no- form for one flag: the operator naming it either way keeps their choice', () => {
    const wanted = ['--no-allocation-site-pretenuring'];
    expect(missingNodeFlags(wanted, [])).toEqual(wanted);
    expect(missingNodeFlags(wanted, [], undefined)).toEqual(wanted);
    expect(missingNodeFlags(wanted, ['--allocation-site-pretenuring'])).toEqual([]);
    expect(missingNodeFlags(wanted, [], '--allocation_site_pretenuring')).toEqual([]);
    expect(missingNodeFlags(wanted, ['--no-allocation-site-pretenuring'])).toEqual([]);
    expect(missingNodeFlags(wanted, ['--no-warnings', '--allocation-site-pretenuring-extra'])).toEqual(wanted);
  });
});

describe('the environment serve completes', () => {
  it("is at most two malloc arenas on the embedded database, none on PostgreSQL, the operator's own kept", () => {
    expect(serveEnvironment({})).toEqual({ MALLOC_ARENA_MAX: '2' });
    expect(serveEnvironment({ DATABASE_URL: 'postgres://127.0.0.1/x' })).toEqual({});
    expect(serveEnvironment({ MALLOC_ARENA_MAX: '8' })).toEqual({});
    // Set, even empty, is the operator's choice.
    expect(serveEnvironment({ MALLOC_ARENA_MAX: '' })).toEqual({});
  });
});

describe('serve on the embedded database', () => {
  it('runs PGlite with --liftoff-only from the command line where Node can re-execute itself, in the same process', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'switchboard-flags-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const { child, argv, environ } = await serveAndReadCommandLine({ SWITCHBOARD_DATA_DIR: dataDir });

    // The data dir's lock names the process serving it: the one this test started.
    const owner = Number.parseInt(await readFile(path.join(dataDir, 'switchboard.lock'), 'utf8'), 10);
    expect(owner).toBe(child.pid);
    expect(argv.includes('--liftoff-only')).toBe(canReexecute);
    expect(argv.some((arg) => arg.startsWith('--max-semi-space-size'))).toBe(false);
    // The environment it re-executed itself with: glibc's arenas capped.
    expect(environ.includes('MALLOC_ARENA_MAX=2')).toBe(canReexecute);
  }, 90_000);

  it("keeps the operator's own number of malloc arenas", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'switchboard-flags-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const { environ } = await serveAndReadCommandLine({ SWITCHBOARD_DATA_DIR: dataDir, MALLOC_ARENA_MAX: '4' });
    expect(environ.filter((entry) => entry.startsWith('MALLOC_ARENA_MAX='))).toEqual(['MALLOC_ARENA_MAX=4']);
  }, 90_000);
});

describe.runIf(process.env.TEST_DATABASE_URL)('serve on PostgreSQL', () => {
  /** The built command on a new PostgreSQL database, `env` added: its command line and environment once it answers. */
  async function serveOnPostgres(env: NodeJS.ProcessEnv = {}): Promise<{ argv: string[]; environ: string[] }> {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    return serveAndReadCommandLine({
      DATABASE_URL: db.url as string,
      SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
      ...env,
    });
  }

  it('runs with the larger young generation from the command line where Node can re-execute itself, and no --liftoff-only', async () => {
    const { argv, environ } = await serveOnPostgres();
    expect(argv.includes('--max-semi-space-size=32')).toBe(canReexecute);
    expect(argv.includes('--liftoff-only')).toBe(false);
    expect(environ.some((entry) => entry.startsWith('MALLOC_ARENA_MAX='))).toBe(false);
  }, 90_000);

  it("keeps the operator's own young generation from NODE_OPTIONS", async () => {
    const { argv } = await serveOnPostgres({ NODE_OPTIONS: '--max-semi-space-size=16' });
    expect(argv.some((arg) => arg.startsWith('--max-semi-space-size'))).toBe(false);
  }, 90_000);
});
