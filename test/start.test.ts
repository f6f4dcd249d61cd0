import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/app.js';
import { until } from './helpers/wait.js';

// `npm start` as a user types it, on a copy of this tree: it builds only what is out of date, so a
// start on a built tree builds nothing (decision 0034).

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const COPIED = ['src', 'web', 'scripts', 'bin', 'drizzle', 'package.json', 'tsconfig.json', 'vite.config.ts'];

let tree: string;
const running: ChildProcess[] = [];

beforeAll(() => {
  tree = mkdtempSync(path.join(tmpdir(), 'switchboard-start-'));
  for (const entry of COPIED) cpSync(path.join(ROOT, entry), path.join(tree, entry), { recursive: true });
  // The build this tree already has, if any, so that only what differs is built again.
  if (existsSync(path.join(ROOT, 'dist')))
    cpSync(path.join(ROOT, 'dist'), path.join(tree, 'dist'), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'), 'dir');
  const built = spawnSync('npm', ['run', 'build'], {
    cwd: tree,
    env: npmEnv(),
    encoding: 'utf8',
    timeout: 240_000,
  });
  expect(built.status, built.error?.message ?? built.stderr).toBe(0);
}, 300_000);

afterAll(() => {
  for (const child of running) {
    if (child.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
  }
  rmSync(tree, { recursive: true, force: true });
});

/** This process's environment without what would point the server elsewhere. */
function npmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', ...extra };
  for (const name of ['DATABASE_URL', 'SWITCHBOARD_DATA_DIR', 'SWITCHBOARD_LOG_FORMAT', 'SWITCHBOARD_ROLE'])
    delete env[name];
  return env;
}

/** `npm start` in the copy until its ready line; returns what it wrote and how long it took. */
async function npmStart(): Promise<{ output: string; seconds: number }> {
  const port = await freePort();
  const started = Date.now();
  const child = spawn('npm', ['start'], { cwd: tree, env: npmEnv({ PORT: String(port) }), detached: true });
  running.push(child);
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start was not ready in 120 s:\n${output}`)), 120_000);
    const check = () => {
      if (!output.includes('Switchboard ready')) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout.on('data', check);
    child.once('exit', () => reject(new Error(`npm start exited:\n${output}`)));
  });
  const seconds = (Date.now() - started) / 1000;
  process.kill(-(child.pid as number), 'SIGTERM');
  await exited;
  // npm may exit before the server has closed: the next start waits until the data dir is free.
  await until(
    'the server to release the data dir',
    () => !ownerAlive(path.join(tree, '.switchboard/switchboard.lock')),
  );
  return { output, seconds };
}

/** Whether the process named in a lock file is still running. */
function ownerAlive(lockFile: string): boolean {
  try {
    process.kill(Number.parseInt(readFileSync(lockFile, 'utf8'), 10), 0);
    return true;
  } catch {
    return false;
  }
}

const modified = (file: string) => statSync(path.join(tree, file)).mtimeMs;
const OUTPUTS = ['dist/cli.js', 'dist/server.js', 'dist/web/index.html', 'dist/.build-state.json'];

describe('npm start', () => {
  it('on a built tree builds nothing, the first time and every time after', async () => {
    const before = OUTPUTS.map(modified);
    const first = await npmStart();
    const second = await npmStart();
    for (const start of [first, second]) {
      expect(start.output).toContain('Switchboard ready — dashboard http://127.0.0.1:');
      expect(start.output).toContain('— data ./.switchboard (embedded PostgreSQL)');
      expect(start.output).not.toContain('building');
    }
    expect(OUTPUTS.map(modified)).toEqual(before);
    // For the record: the contract promises a start in under 3 s; a loaded CI machine may take longer.
    console.info(`npm start on a built tree: ${first.seconds} s (new data dir), ${second.seconds} s (existing)`);
  }, 300_000);

  it('after an edit to src/ builds the server again, and only the server', async () => {
    const dashboard = modified('dist/web/index.html');
    const server = modified('dist/config.js');
    appendFileSync(path.join(tree, 'src/config.ts'), '\n// An edit.\n');
    const start = await npmStart();
    expect(start.output).toContain('building the server');
    expect(start.output).not.toContain('building the dashboard');
    expect(modified('dist/web/index.html')).toBe(dashboard);
    expect(modified('dist/config.js')).toBeGreaterThan(server);
    expect((await npmStart()).output).not.toContain('building');
  }, 300_000);
});
