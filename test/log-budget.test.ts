import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { LOG_HOLD_MS } from '../src/logging.js';
import { freePort } from './helpers/app.js';
import { answersHealthz, until } from './helpers/wait.js';

// `switchboard serve` whose standard output stops being read (a log collector that stalled): its
// JSON log waits within SWITCHBOARD_LOG_BUFFER_BYTES, the lines past it are dropped and counted,
// the service answers all along, and it says what it dropped once the output moves (decision 0074).

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BUDGET = 64 * 1024;
/** Requests sent while nobody reads: ~330 bytes of log each, many times the budget and the pipe. */
const REQUESTS = 4000;

const dirs: string[] = [];
const children: ChildProcessByStdio<null, Readable, Readable>[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * `switchboard serve` with JSON lines (or `format`), a 64 KiB budget and its standard output a pipe
 * this test does not read until it says so; standard error is kept. With `terminal`, the service
 * runs under `script` (util-linux), which gives it a real terminal and copies that terminal to the
 * pipe: stopping `script` is a terminal whose reader stopped, as Ctrl-S does. `child` is then
 * `script`, in a process group of its own.
 */
async function serve(format: 'json' | 'pretty' | 'auto' = 'json', { terminal = false } = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-log-budget-'));
  dirs.push(dataDir);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const command = [process.execPath, '--import', 'tsx', 'src/cli.ts', 'serve'];
  const options = {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      SHELL: '/bin/sh',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SWITCHBOARD_LOG_FORMAT: format,
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_LOG_BUFFER_BYTES: String(BUDGET),
    },
    stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'],
  };
  // Under `script`, the shell's `exec` makes the service `script`'s own child.
  const child = terminal
    ? spawn(
        'script',
        [
          '--quiet',
          '--flush',
          '--return',
          '--command',
          `exec ${command.map((word) => `'${word}'`).join(' ')}`,
          '/dev/null',
        ],
        {
          ...options,
          detached: true,
        },
      )
    : spawn(command[0] as string, command.slice(1), options);
  const watched = unreadStdout(child);
  await until('the server to answer', () => answersHealthz(url), 45_000);
  return { child, url, ...watched };
}

/** Leaves `child`'s standard output unread (paused), keeps its standard error, and waits for its exit code. */
function unreadStdout(child: ChildProcessByStdio<null, Readable, Readable>) {
  children.push(child);
  child.stdout.pause();
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { stderr: () => stderr, exited };
}

/**
 * A path whose readable log line is as long as a JSON one (~330 bytes): `serve`'s standard output is
 * a socket pair, which holds a few hundred KB before the budget is reached, so short lines would
 * not reach it.
 */
const LONG_PATH = `/v1/${'x'.repeat(290)}`;

/** Reads `child`'s standard output from now on: what it wrote so far, and when it ended. */
function readStdout(child: ChildProcessByStdio<null, Readable, Readable>) {
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    output += chunk;
  });
  const ended = new Promise<void>((resolve) => child.stdout.once('end', resolve));
  child.stdout.resume();
  return { output: () => output, ended };
}

/** Runs `lines` as an ES module in a new Node process (TypeScript through tsx), `boundedLogDestination` imported. */
function runScript(lines: string[]) {
  const script = ["import { boundedLogDestination } from './src/logging.ts';", ...lines].join('\n');
  return spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Sends `count` requests to `path` (answered 401, or 404 for `LONG_PATH`, and logged), 25 at a time; returns their statuses. */
async function sendRequests(url: string, count: number, path = '/v1/agents'): Promise<Record<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: 25 }, async () => {
      while (next < count) {
        next += 1;
        // A service blocked on its log would leave the request unanswered: a failure, not a hang.
        const response = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) });
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    }),
  );
  return Object.fromEntries(statuses);
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`${name} is not in /metrics`);
  return Number(line.slice(name.length + 1));
}

describe('the log while standard output is not read', () => {
  it('keeps at most SWITCHBOARD_LOG_BUFFER_BYTES waiting, counts every line past it, and says so once the output moves', async () => {
    const { child, url, stderr, exited } = await serve();
    // Nothing reads: the requests are answered all the same, each leaving one line to write.
    expect(await sendRequests(url, REQUESTS)).toEqual({ 401: REQUESTS });

    // Read from here on; the service reports what it dropped once what waited is written.
    const { output } = readStdout(child);
    const lines = () =>
      output()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, any>);
    const notices = await until('the dropped lines to be reported', () => {
      const found = lines().filter((line) => typeof line.droppedLines === 'number');
      return found.length > 0 ? found : undefined;
    });
    expect(notices[0]).toMatchObject({
      level: 40,
      msg: expect.stringMatching(
        /^(1 log line was|[\d,]+ log lines were) dropped: standard output fell more than SWITCHBOARD_LOG_BUFFER_BYTES \(65,536 bytes\) behind$/,
      ),
    });

    // Every request's line was either written or counted as dropped; the metric says as many.
    const dropped = notices.reduce((sum, notice) => sum + (notice.droppedLines as number), 0);
    const written = lines().filter((line) => line.req?.url === '/v1/agents').length;
    expect(dropped).toBeGreaterThan(0);
    expect(written).toBeGreaterThan(0);
    expect(written + dropped).toBe(REQUESTS);
    expect(await metric(url, 'switchboard_log_lines_dropped_total')).toBe(dropped);

    // Once caught up, lines are written again, none dropped.
    await fetch(`${url}/v1/agents?after=catch-up`);
    await until('the next request to be logged', () =>
      lines().some((line) => line.req?.url === '/v1/agents?after=catch-up'),
    );
    expect(await metric(url, 'switchboard_log_lines_dropped_total')).toBe(dropped);

    // An output that is read gets every line at exit, the last one included; nothing is given up.
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await until('the last line to be read', () => lines().some((line) => line.msg === 'shutting down'));
    expect(stderr()).toBe('');
  }, 90_000);

  it('readable lines (SWITCHBOARD_LOG_FORMAT=pretty) have the same budget, and say in a readable line what was dropped', async () => {
    // Before, readable lines went through Node's own standard output, which queues without bound on
    // a pipe that is not read: nothing was dropped and the process grew with every request.
    const { child, url, stderr, exited } = await serve('pretty');
    expect(await sendRequests(url, REQUESTS, LONG_PATH)).toEqual({ 404: REQUESTS });
    expect(await metric(url, 'switchboard_log_lines_dropped_total')).toBeGreaterThan(0);

    const { output } = readStdout(child);
    const notice =
      /^\[\d\d:\d\d:\d\d\] WARN: (1 log line was|[\d,]+ log lines were) dropped: standard output fell more than SWITCHBOARD_LOG_BUFFER_BYTES \(65,536 bytes\) behind/m;
    await until('the dropped lines to be reported', () => notice.test(output()));
    // Read once the output caught up: the last lines were held (LOG_HOLD_MS) after their answers,
    // and dropped, or not, when they were handed on (decision 0120).
    const dropped = await metric(url, 'switchboard_log_lines_dropped_total');
    const written = output()
      .split('\n')
      .filter((line) => line.includes(`INFO: GET ${LONG_PATH} → 404`)).length;
    expect(written).toBeGreaterThan(0);
    // The scrape's own line may be dropped too, after the figure was read.
    expect(written + dropped).toBeGreaterThanOrEqual(REQUESTS);
    expect(written + dropped).toBeLessThanOrEqual(REQUESTS + 1);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await until('the last line to be read', () => output().includes('INFO: shutting down'));
    expect(stderr()).toBe('');
  }, 90_000);

  it('a terminal that stops reading (Ctrl-S) does not stop the service: its lines wait within the budget', async () => {
    // Node writes to a terminal synchronously: before, the service stopped answering once the
    // terminal's buffer was full.
    const { child: terminal, url, exited } = await serve('auto', { terminal: true });
    const { output } = readStdout(terminal);
    try {
      // The readable format, chosen because standard output is a terminal.
      await until('the ready line', () => /INFO.*Switchboard ready/.test(output()));
      process.kill(terminal.pid as number, 'SIGSTOP');

      expect(await sendRequests(url, REQUESTS, LONG_PATH)).toEqual({ 404: REQUESTS });
      expect(await metric(url, 'switchboard_log_lines_dropped_total')).toBeGreaterThan(0);

      // Ctrl-C with the terminal still stopped: the service gives the terminal its 5 s and exits,
      // rather than wait for it. The service is `script`'s child (the shell's `exec`); once it has
      // exited, the stopped `script` cannot reap it, so it shows as a zombie until `script` goes on.
      const [service] = readFileSync(`/proc/${terminal.pid}/task/${terminal.pid}/children`, 'utf8').trim().split(' ');
      process.kill(Number(service), 'SIGINT');
      await until(
        'the service to exit, its terminal still stopped',
        () =>
          !existsSync(`/proc/${service}`) ||
          readFileSync(`/proc/${service}/stat`, 'utf8').split(') ')[1]?.startsWith('Z'),
        20_000,
      );
    } finally {
      process.kill(terminal.pid as number, 'SIGCONT');
      // Whatever is still running (after a failure), ended as a person ends it, Ctrl-C.
      process.kill(-(terminal.pid as number), 'SIGINT');
    }
    expect(await exited).toBe(0);
  }, 90_000);

  it('at exit, gives standard output 5 s without progress, then says on standard error what it gave up, and exits', async () => {
    const { child, url, stderr, exited } = await serve();
    // Many times the budget and the pipe: the budget is full and the pipe will take nothing more.
    expect(await sendRequests(url, REQUESTS)).toEqual({ 401: REQUESTS });

    // Before decision 0075 the process wrote at exit until the output was read, which here is never.
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr()).toMatch(
      /^switchboard: [\d,]+ bytes of log were not written: standard output took nothing for 5 s at exit$/m,
    );
    const given = Number(/([\d,]+) bytes of log/.exec(stderr())?.[1]?.replaceAll(',', ''));
    expect(given).toBeGreaterThan(0);
    expect(given).toBeLessThanOrEqual(BUDGET);
  }, 90_000);

  it('when standard output is closed (EPIPE), says so once on standard error, counts the lines it cannot write, and serves on', async () => {
    const { child, url, stderr, exited } = await serve();
    child.stdout.destroy();
    // The next line written meets the closed pipe.
    await until('the broken output to be reported', async () => {
      await (await fetch(`${url}/v1/agents`)).arrayBuffer();
      return stderr().includes('standard output failed');
    });
    // More lines: not written, counted, and no second report.
    expect(await sendRequests(url, 50)).toEqual({ 401: 50 });
    const dropped = await metric(url, 'switchboard_log_lines_dropped_total');
    expect(dropped).toBeGreaterThanOrEqual(50);
    expect(await sendRequests(url, 10)).toEqual({ 401: 10 });
    // Each of those 10 requests and the scrape's own line, at least.
    expect(await metric(url, 'switchboard_log_lines_dropped_total')).toBeGreaterThanOrEqual(dropped + 10);
    expect(stderr().trim().split('\n')).toEqual([
      'switchboard: standard output failed (EPIPE): log lines are dropped from now on, counted in switchboard_log_lines_dropped_total',
    ]);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr().trim().split('\n')).toHaveLength(1);
  }, 90_000);

  it('a process that crashes with lines waiting gives them the same budget at exit, then exits with its code', async () => {
    // What a crash meets: no shutdown of ours runs, only the exit listener (a 0.2 s budget here).
    const script = [
      'const log = boundedLogDestination(1 << 20, { stallMs: 200 });',
      "for (let i = 0; i < 20000; i++) log.stream.write(JSON.stringify({ i, pad: 'x'.repeat(100) }) + '\\n');",
      "throw new Error('crashed with 2 MB of log waiting');",
    ];
    const child = runScript(script);
    const { stderr, exited } = unreadStdout(child);
    expect(await exited).toBe(1);
    expect(stderr()).toContain('crashed with 2 MB of log waiting');
    expect(stderr()).toMatch(
      /^switchboard: [\d,]+ bytes of log were not written: standard output took nothing for 0.2 s at exit$/m,
    );
  }, 60_000);

  it('destinations built one after another share one exit listener and keep none that caught up', async () => {
    // What a test runner or an embedder meets: a server built and closed 50 times in one process.
    // With lines still waiting in the last destination at exit, they are written by the one listener.
    const script = [
      "process.on('warning', (warning) => console.error('warning: ' + warning.name));",
      "const before = process.listenerCount('exit');",
      'for (let i = 0; i < 50; i++) {',
      '  const log = boundedLogDestination(1 << 20);',
      "  log.stream.write(JSON.stringify({ server: i }) + '\\n');",
      '  await log.settle();',
      '}',
      "console.error('exit listeners added: ' + (process.listenerCount('exit') - before));",
      'const last = boundedLogDestination(1 << 20);',
      "for (let i = 0; i < 3000; i++) last.stream.write(JSON.stringify({ last: i, pad: 'x'.repeat(100) }) + '\\n');",
      'process.exit(3);',
    ];
    const child = runScript(script);
    const { stderr, exited } = unreadStdout(child);
    const { output, ended } = readStdout(child);
    expect(await exited).toBe(3);
    await ended;
    expect(stderr().trim().split('\n')).toEqual(['exit listeners added: 1']);
    const lines = output().trim().split('\n');
    expect(lines.slice(0, 50)).toEqual(Array.from({ length: 50 }, (_, i) => JSON.stringify({ server: i })));
    // The first of the last lines was being written when the process exited: whether it got out is
    // the kernel's race, not ours. The 2,999 after it waited, and the exit wrote them.
    const pad = 'x'.repeat(100);
    const waited = Array.from({ length: 2999 }, (_, i) => JSON.stringify({ last: i + 1, pad }));
    expect(lines.slice(-2999)).toEqual(waited);
  }, 60_000);

  it('lines logged close together go out in one write, each within LOG_HOLD_MS of being logged', async () => {
    // Decision 0120: writing the lines cost the accept path more than formatting them, so lines are
    // held and written together. Here 200 lines over 10 turns, then one line alone 0.2 s later;
    // sonic-boom's writes are counted.
    const script = [
      "import fs from 'node:fs';",
      'const write = fs.write;',
      'let writes = 0;',
      'fs.write = (...args) => { writes += 1; return write(...args); };',
      'const log = boundedLogDestination(1 << 20);',
      'const began = performance.now();',
      'for (let turn = 0; turn < 10; turn++) {',
      "  for (let i = 0; i < 20; i++) log.stream.write(JSON.stringify({ line: turn * 20 + i }) + '\\n');",
      '  await new Promise((resolve) => setImmediate(resolve));',
      '}',
      'const span = performance.now() - began;',
      'await new Promise((resolve) => setTimeout(resolve, 200));',
      'console.error(JSON.stringify({ writes, span }));',
      'const alone = performance.now();',
      "log.stream.write(JSON.stringify({ line: 200 }) + '\\n');",
      'while (writes < 2 && performance.now() - alone < 5000) await new Promise((resolve) => setTimeout(resolve, 1));',
      "console.error('a line alone written after ' + (performance.now() - alone < 1000 ? 'less than' : 'more than') + ' a second');",
      'await log.settle();',
    ];
    const child = runScript(script);
    const { stderr, exited } = unreadStdout(child);
    const { output, ended } = readStdout(child);
    expect(await exited).toBe(0);
    await ended;
    const [counted, alone] = stderr().trim().split('\n');
    // One write, or one per LOG_HOLD_MS the ten turns took on a machine that held the process up;
    // before, one write a turn (ten).
    const { writes, span } = JSON.parse(counted as string) as { writes: number; span: number };
    expect(writes).toBeLessThanOrEqual(Math.min(9, 1 + Math.ceil(span / LOG_HOLD_MS)));
    expect(alone).toBe('a line alone written after less than a second');
    expect(output().trim().split('\n')).toEqual(Array.from({ length: 201 }, (_, line) => JSON.stringify({ line })));
  }, 60_000);

  it('SWITCHBOARD_LOG_BUFFER_BYTES: 16 MiB by default, from 64 KiB to 1 GiB', () => {
    expect(loadConfig({}).logBufferBytes).toBe(16 * 1024 * 1024);
    expect(loadConfig({ SWITCHBOARD_LOG_BUFFER_BYTES: '65536' }).logBufferBytes).toBe(65_536);
    for (const bad of ['65535', '1073741825', '65536.5', 'lots', '-1']) {
      expect(() => loadConfig({ SWITCHBOARD_LOG_BUFFER_BYTES: bad })).toThrow(
        `SWITCHBOARD_LOG_BUFFER_BYTES must be an integer from 65536 to 1073741824, got "${bad}"`,
      );
    }
  });
});
