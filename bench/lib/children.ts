import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from '../../test/helpers/free-port.js';
import { type BenchmarkResult, formatResults } from './report.js';

/**
 * A port for a server under test, from below the kernel's ephemeral range: a port `listen(0)` handed
 * out could be taken by one of the load's own outgoing connections before the server listened.
 */
export { freePort };

/** The repository root (bench/lib/ is two levels down). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every child this process started and has not yet seen exit: killed by `killAll`. */
const live = new Set<ChildProcess>();

export interface Child {
  process: ChildProcess;
  pid: number;
  /** The last few KB of what it wrote to stdout and stderr, for error messages. */
  output(): string;
  /** Resolves with the exit code (or signal) once it has exited and its output is all read. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Spawns a child, remembers it until it exits, and keeps the tail of its output. */
export function startChild(command: string, args: string[], options: SpawnOptions & { label: string }): Child {
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], ...options });
  if (child.pid === undefined) throw new Error(`could not start ${options.label}`);
  live.add(child);
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    // 'close', not 'exit': by then its output (and its IPC messages) are all read, so a result sent
    // just before it exits is not taken for none, and the tail shown on a failure is whole.
    child.once('close', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
    child.once('error', () => {
      live.delete(child);
      resolve({ code: null, signal: null });
    });
  });
  const pid = child.pid;
  return {
    process: child,
    pid,
    output: () => tail,
    exited,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A TypeScript file of bench/ run by Node through tsx, with an IPC channel to this process. */
export function startTsChild(file: string, label: string, env: NodeJS.ProcessEnv = process.env): Child {
  return startChild(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', file)], {
    label,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
}

/** Kills every child still running (SIGKILL), by pid: used on the way out, also after a failure. */
export function killAll(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {}
  }
  live.clear();
}

/** Kill the children if the benchmark itself is interrupted or dies. */
export function killChildrenOnExit(): void {
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAll();
      process.exit(130);
    });
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `url` until it answers 200, the child exits, or `timeoutMs` passes. Returns the time from
 * `since` (performance.now()) to the first 200, in ms.
 */
export async function waitUntilHealthy(url: string, child: Child, since: number, timeoutMs = 60_000): Promise<number> {
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  const deadline = since + timeoutMs;
  for (;;) {
    if (exited) throw new Error(`the child exited before ${url} answered:\n${child.output()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status === 200) return performance.now() - since;
    } catch {}
    if (performance.now() > deadline)
      throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${child.output()}`);
    await sleep(20);
  }
}

/** VmRSS of a process, in MB (from /proc/<pid>/status). */
export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

/**
 * Runs `benchmark` and prints its table when `moduleUrl` is the script node was started with (a
 * benchmark run alone: `npx tsx bench/<name>.ts`); exits 1 when something could not be measured.
 */
export async function runIfMain(moduleUrl: string, benchmark: { run(): Promise<BenchmarkResult> }): Promise<void> {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  killChildrenOnExit();
  let failed = true;
  try {
    const result = await benchmark.run();
    process.stdout.write(formatResults([result]));
    failed = result.failures.length > 0;
  } finally {
    killAll();
  }
  process.exit(failed ? 1 : 0);
}

/** Waits until a child has printed `text` (a server saying it listens), at most `timeoutMs`. */
export async function waitForOutput(child: Child, text: string, timeoutMs = 5000): Promise<void> {
  for (let waited = 0; !child.output().includes(text); waited += 50) {
    if (waited >= timeoutMs) throw new Error(`no "${text}" from the child: ${child.output()}`);
    await sleep(50);
  }
}
