import { createServer } from 'node:net';

/** Ports `freePort` has handed out in this process, so that it never hands out one twice. */
const handedOut = new Set<number>();

/**
 * A port to listen on: one from 20000 to 32767, at random, that a listen on 127.0.0.1 found free.
 * The range lies below the kernel's ephemeral range (32768–60999), so no outgoing connection can
 * take the port between this choice and the caller's listen. A port `listen(0)` handed out could:
 * in one CI run a Retell test's app met `EADDRINUSE` on a port that had been free a moment before.
 * The tests and the benchmarks (bench/lib/children.ts) take their ports here.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_768);
    if (handedOut.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (!free) continue;
    handedOut.add(port);
    return port;
  }
}
