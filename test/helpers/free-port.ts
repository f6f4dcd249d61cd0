import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { processIsAlive } from '../../src/db/data-dir.js';

/**
 * The claims (files) of the ports `freePort` has handed out in this process, so that it never hands
 * out one twice. A port counts as handed out in the directory it was claimed in: a test that claims in
 * a directory of its own (test/free-port.test.ts) may be handed a port this worker handed out before.
 */
const handedOut = new Set<string>();

/** The range ports are handed out from: below the kernel's ephemeral range (32768–60999). */
export const LOWEST_PORT = 20_000;
export const PORTS = 12_768;

/**
 * Where each test process claims the ports it hands out (a file per port holding its pid), so that
 * no two processes on the machine hand out the same one: vitest's workers and CI's two passes run
 * side by side. `SWITCHBOARD_TEST_PORT_CLAIMS` names another directory (test/free-port.test.ts).
 */
const claimsDir = () => process.env.SWITCHBOARD_TEST_PORT_CLAIMS ?? path.join(tmpdir(), 'switchboard-test-ports');

/** Claims `file` (a port's) for this process; false if a live process holds it. A dead one's claim is taken over. */
function claim(file: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(file, 'utf8').trim() || Number.NaN);
      // A claim being written (empty) or held by a live process is left alone.
      if (!Number.isInteger(holder) || processIsAlive(holder)) return false;
      rmSync(file, { force: true });
    }
  }
  return false;
}

let releasesOnExit = false;
/**
 * The claims of this process are removed as it exits normally; those of one stopped otherwise (vitest
 * ends its workers so) are taken over once their pid is gone.
 */
function releaseOnExit(): void {
  if (releasesOnExit) return;
  releasesOnExit = true;
  process.once('exit', () => {
    for (const file of handedOut) rmSync(file, { force: true });
  });
}

/**
 * A port to listen on: one from 20000 to 32767 that a listen on 127.0.0.1 found free and no other
 * test process on the machine has handed out. Each port of the range is tried once, from one drawn
 * at random on; if none is left, it fails saying so. A draw repeated until a port was free spun for
 * ever, without yielding, once every free port had been handed out (a CI pass stopped after 45
 * minutes in test/free-port.test.ts, decision 0116). The range lies below the kernel's
 * ephemeral range (32768–60999), so no outgoing connection can take the port between this choice
 * and the caller's listen. A port `listen(0)` handed out could: in one CI run a Retell test's app
 * met `EADDRINUSE` on a port that had been free a moment before. Without the claims, two processes
 * could draw the same free port at once: a server process started by a test then failed to listen
 * while the other's server answered its readiness probe (`/healthz`), and the test went on with a
 * server that was not its own (a likely cause of a CI run's `fetch failed` in
 * test/campaign-crash.test.ts, which ran 18 times here without failing).
 * The tests and the benchmarks (bench/lib/children.ts) take their ports here.
 */
export async function freePort(): Promise<number> {
  const claims = claimsDir();
  mkdirSync(claims, { recursive: true });
  releaseOnExit();
  const first = Math.floor(Math.random() * PORTS);
  for (let i = 0; i < PORTS; i++) {
    const port = LOWEST_PORT + ((first + i) % PORTS);
    const file = path.join(claims, String(port));
    if (handedOut.has(file) || !claim(file)) continue;
    handedOut.add(file);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(
    `no free port from ${LOWEST_PORT} to ${LOWEST_PORT + PORTS - 1}: each is in use, claimed by a live process (${claims}) or handed out by this one`,
  );
}
