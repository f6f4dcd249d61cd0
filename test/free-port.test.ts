import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, LOWEST_PORT, PORTS } from './helpers/free-port.js';

// Test processes claim the ports they hand out, so that two never hand out the same one: a server
// process could otherwise fail to listen while another test's server answered its readiness probe.

const claimsBefore = process.env.SWITCHBOARD_TEST_PORT_CLAIMS;
const directories: string[] = [];
afterEach(() => {
  if (claimsBefore === undefined) delete process.env.SWITCHBOARD_TEST_PORT_CLAIMS;
  else process.env.SWITCHBOARD_TEST_PORT_CLAIMS = claimsBefore;
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** Whether a listen on `port` at 127.0.0.1 succeeds now. */
const listenable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** Ports of the range a listen found free now, `count` of them, drawn at random. */
async function listenablePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = LOWEST_PORT + Math.floor(Math.random() * PORTS);
    if (!ports.includes(port) && (await listenable(port))) ports.push(port);
  }
  return ports;
}

/**
 * Makes a claims directory of the test's own the one `freePort` uses, with each port of the range
 * claimed by the pid `holder(port)` names, by no one where it says `null`.
 */
function claimEveryPort(holder: (port: number) => string | null): string {
  const claims = mkdtempSync(path.join(tmpdir(), 'switchboard-port-claims-'));
  directories.push(claims);
  for (let port = LOWEST_PORT; port < LOWEST_PORT + PORTS; port++) {
    const pid = holder(port);
    if (pid !== null) writeFileSync(path.join(claims, String(port)), pid);
  }
  process.env.SWITCHBOARD_TEST_PORT_CLAIMS = claims;
  return claims;
}

describe('freePort', () => {
  it('hands out no port a live process claimed, and takes over the claim of one that died', async () => {
    // Two ports free now: one claimed by a process that has exited, one claimed by no one.
    const [ofTheDead, unclaimed] = (await listenablePorts(2)) as [number, number];
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      timeout: 30_000,
    });
    const deadPid = dead.stdout.toString();
    // Every other port of the range is held by a live process (this one's parent).
    const claims = claimEveryPort((port) =>
      port === unclaimed ? null : port === ofTheDead ? deadPid : String(process.ppid),
    );

    const handed = [await freePort(), await freePort()];
    expect(handed.sort()).toEqual([ofTheDead, unclaimed].sort());
    // Both are now this process's.
    for (const port of handed) expect(readFileSync(path.join(claims, String(port)), 'utf8')).toBe(String(process.pid));
  });

  it('counts a port as handed out by this process only in the claims directory it claimed it in', async () => {
    // A vitest worker hands out hundreds of ports over a run; one of them is this test's last free port.
    claimEveryPort(() => null);
    const handedBefore = await freePort();
    claimEveryPort((port) => (port === handedBefore ? null : String(process.ppid)));
    expect(await freePort()).toBe(handedBefore);
  });

  it('fails, naming the range, once every port is claimed, in use or handed out, instead of trying for ever', async () => {
    const [last] = (await listenablePorts(1)) as [number];
    claimEveryPort((port) => (port === last ? null : String(process.ppid)));
    expect(await freePort()).toBe(last);
    await expect(freePort()).rejects.toThrow(
      /^no free port from 20000 to 32767: each is in use, claimed by a live process/,
    );

    // The one port no one claimed is in use by another program.
    const [taken] = (await listenablePorts(1)) as [number];
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(taken, '127.0.0.1', resolve));
    try {
      claimEveryPort((port) => (port === taken ? null : String(process.ppid)));
      await expect(freePort()).rejects.toThrow(/^no free port from 20000 to 32767/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
