import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from './helpers/free-port.js';

// Test processes claim the ports they hand out, so that two never hand out the same one: a server
// process could otherwise fail to listen while another test's server answered its readiness probe.

const claimsBefore = process.env.SWITCHBOARD_TEST_PORT_CLAIMS;
afterEach(() => {
  if (claimsBefore === undefined) delete process.env.SWITCHBOARD_TEST_PORT_CLAIMS;
  else process.env.SWITCHBOARD_TEST_PORT_CLAIMS = claimsBefore;
});

/** Whether a listen on `port` at 127.0.0.1 succeeds now. */
const listenable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

describe('freePort', () => {
  it('hands out no port a live process claimed, and takes over the claim of one that died', async () => {
    const claims = mkdtempSync(path.join(tmpdir(), 'switchboard-port-claims-'));
    try {
      process.env.SWITCHBOARD_TEST_PORT_CLAIMS = claims;
      // Two ports free now: one claimed by a process that has exited, one claimed by no one.
      const left: number[] = [];
      while (left.length < 2) {
        const port = 20_000 + Math.floor(Math.random() * 12_768);
        if (!left.includes(port) && (await listenable(port))) left.push(port);
      }
      const [ofTheDead, unclaimed] = left as [number, number];
      const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
        timeout: 30_000,
      });
      const deadPid = dead.stdout.toString();
      // Every other port of the range is held by a live process (this one's parent).
      for (let port = 20_000; port < 32_768; port++) {
        if (port === unclaimed) continue;
        writeFileSync(path.join(claims, String(port)), port === ofTheDead ? deadPid : String(process.ppid));
      }

      const handed = [await freePort(), await freePort()];
      expect(handed.sort()).toEqual([ofTheDead, unclaimed].sort());
      // Both are now this process's.
      for (const port of handed)
        expect(readFileSync(path.join(claims, String(port)), 'utf8')).toBe(String(process.pid));
    } finally {
      rmSync(claims, { recursive: true, force: true });
    }
  });
});
