import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, onFreePort } from './helpers/app.js';

// The tests' servers listen on ports from `freePort`. Two CI runs share a machine, so a port can be
// taken between its choice and the listen; these check that the helpers then try another.
const opened: Server[] = [];
const listen = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      opened.push(server);
      resolve(server);
    });
  });
afterAll(async () => {
  await Promise.all(opened.map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('the ports the tests listen on', () => {
  it('are below the ephemeral range, free, and never the same twice in a process', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 50; i++) ports.push(await freePort());
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(32_768);
    }
    expect(new Set(ports).size).toBe(50);
    await Promise.all(ports.map(listen));
  });

  it('onFreePort listens on another port when the one it drew was taken before the listen', async () => {
    const tried: number[] = [];
    const server = await onFreePort(async (port) => {
      tried.push(port);
      if (tried.length === 1) await listen(port); // someone else takes the port first
      return listen(port);
    });
    expect(tried).toHaveLength(2);
    expect(tried[1]).not.toBe(tried[0]);
    expect((server.address() as { port: number }).port).toBe(tried[1]);
  });

  it('onFreePort gives up after five taken ports, and at once on any other error', async () => {
    let tries = 0;
    await expect(
      onFreePort(async (port) => {
        tries++;
        await listen(port);
        return listen(port);
      }),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(tries).toBe(5);

    tries = 0;
    await expect(
      onFreePort(async () => {
        tries++;
        throw new Error('the app did not build');
      }),
    ).rejects.toThrow('the app did not build');
    expect(tries).toBe(1);
  });
});
