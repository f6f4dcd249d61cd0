import { readdir, readFile } from 'node:fs/promises';

/** Linux reports utime/stime in clock ticks of 1/100 s on x86_64 and arm64. */
const TICKS_PER_SECOND = 100;

async function statOf(
  pid: number | string,
): Promise<{ comm: string; cpuMs: number; exitedChildrenCpuMs: number } | undefined> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone
  }
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  // After "pid (comm) ": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
  // cutime cstime (the last two: its children that have exited and been waited for).
  const ticks = Number(fields[11]) + Number(fields[12]);
  const childTicks = Number(fields[13]) + Number(fields[14]);
  return {
    comm: text.slice(open + 1, close),
    cpuMs: (ticks * 1000) / TICKS_PER_SECOND,
    exitedChildrenCpuMs: (childTicks * 1000) / TICKS_PER_SECOND,
  };
}

/**
 * CPU time used so far by this process's children that have exited (a benchmark's load generators,
 * once their load is over), in ms. A child still running is not in it.
 */
export async function exitedChildrenCpuMs(): Promise<number> {
  return (await statOf('self'))?.exitedChildrenCpuMs ?? Number.NaN;
}

/** CPU time (user + system) a process has used so far, in ms. */
export async function processCpuMs(pid: number): Promise<number> {
  return (await statOf(pid))?.cpuMs ?? Number.NaN;
}

/** CPU time used so far by every process named `postgres` on this machine (server and backends), in ms. */
export async function postgresCpuMs(): Promise<Map<string, number>> {
  const usage = new Map<string, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await statOf(entry);
    if (stat?.comm === 'postgres') usage.set(entry, stat.cpuMs);
  }
  return usage;
}

/** What the `postgres` processes used between two snapshots (processes that started in between count from 0). */
export function postgresCpuDelta(before: Map<string, number>, after: Map<string, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** The whole machine's CPU time so far from /proc/stat, in ms: busy (not idle or waiting on I/O) and stolen by the hypervisor. */
export async function machineCpuMs(): Promise<{ busyMs: number; stealMs: number }> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0]!;
  const [user, nice, system, _idle, _iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  const toMs = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;
  return {
    busyMs: toMs(user! + nice! + system! + irq! + softirq!),
    stealMs: toMs(steal ?? 0),
  };
}

/**
 * Waits until the machine is quiet: under `busyMs` of CPU (all cores, every process) in a second,
 * checked each second, for at most `maxMs`. Used after a burst of load, so what is measured next is
 * not the tail of the burst's background work (calls ending, the stats rollup, PostgreSQL writing
 * out). Returns how long it waited, and whether it became quiet.
 */
export async function waitForQuiet(busyMs = 100, maxMs = 60_000): Promise<{ waitedMs: number; quiet: boolean }> {
  const started = Date.now();
  let before = await machineCpuMs();
  while (Date.now() - started < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await machineCpuMs();
    if (after.busyMs - before.busyMs < busyMs) return { waitedMs: Date.now() - started, quiet: true };
    before = after;
  }
  return { waitedMs: Date.now() - started, quiet: false };
}
