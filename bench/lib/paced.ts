/**
 * Open-loop pacing for latency benchmarks: requests go out on a schedule, whether or not earlier
 * ones have been answered (a closed loop would slow down with the server and hide its queueing),
 * and the CPU each process used meanwhile.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { sleep } from './children.js';
import { exitedChildrenCpuMs, machineCpuMs, postgresCpuDelta, postgresCpuMs, processCpuMs } from './cpu.js';

/**
 * Calls `send(i)` `perSecond` times a second for `seconds` (ticks of 2 ms, each sending what is
 * due), never waiting for an answer before the next is due; resolves once every send has settled.
 * Returns how many were sent.
 */
export async function sendAtPace(
  perSecond: number,
  seconds: number,
  send: (i: number) => Promise<unknown>,
): Promise<number> {
  const started = performance.now();
  const pending: Promise<unknown>[] = [];
  let sent = 0;
  for (;;) {
    const elapsed = (performance.now() - started) / 1000;
    if (elapsed >= seconds) break;
    const due = Math.min(Math.floor(elapsed * perSecond) + 1, Math.ceil(seconds * perSecond));
    for (; sent < due; sent++) pending.push(send(sent).catch(() => undefined));
    await sleep(2);
  }
  await Promise.all(pending);
  return sent;
}

export interface CpuWindow {
  elapsedMs: number;
  serverMs: number;
  postgresMs: number;
  /**
   * Share of the machine's CPU (all cores) used by processes other than the server, PostgreSQL and
   * this one, in %. Children of this one that ended within the window (load generators) are this
   * one's: a window that holds a whole load does not count its load generator as a disturbance.
   */
  othersPct: number;
}

/** At this share of the machine used by other processes, a figure is marked DISTURBED. */
export const DISTURBED_PCT = 10;

/** Starts measuring the CPU of the server `serverPid`, PostgreSQL, this process and the rest of the machine; call the result to stop. */
export async function startCpuWindow(serverPid: number, extraPids: number[] = []): Promise<() => Promise<CpuWindow>> {
  const snapshot = async () => ({
    at: performance.now(),
    server: await processCpuMs(serverPid),
    extra: await Promise.all(extraPids.map((pid) => processCpuMs(pid))),
    postgres: await postgresCpuMs(),
    machine: await machineCpuMs(),
    self: process.cpuUsage(),
    exitedChildren: await exitedChildrenCpuMs(),
  });
  const before = await snapshot();
  return async () => {
    const after = await snapshot();
    const serverMs = after.server - before.server;
    const extraMs = after.extra.reduce((sum, ms, i) => sum + (ms - (before.extra[i] ?? ms)), 0);
    const postgresMs = postgresCpuDelta(before.postgres, after.postgres);
    const self = process.cpuUsage(before.self);
    const selfMs = (self.user + self.system) / 1000 + (after.exitedChildren - before.exitedChildren);
    const elapsedMs = after.at - before.at;
    const othersMs = after.machine.busyMs - before.machine.busyMs - serverMs - postgresMs - selfMs - extraMs;
    return {
      elapsedMs,
      serverMs,
      postgresMs,
      othersPct: Math.max(0, (othersMs / (elapsedMs * os.cpus().length)) * 100),
    };
  };
}

export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))]!;
}

/** "Other processes used N% …", with DISTURBED when the figures are not reliable. */
export function othersNote(othersPct: number): string {
  return `Other processes used ${othersPct.toFixed(0)}% of the machine's CPU meanwhile${othersPct >= DISTURBED_PCT ? ' (DISTURBED: the figures of this run are not reliable)' : ''}.`;
}
