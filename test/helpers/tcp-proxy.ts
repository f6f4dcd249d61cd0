import net from 'node:net';
import { onFreePort } from './app.js';

/**
 * A TCP proxy on loopback standing between a server process and its PostgreSQL, so that a test can
 * take the database away from that one process without stopping the machine's PostgreSQL.
 */
export interface TcpProxy {
  /** The port it listens on, on 127.0.0.1. */
  readonly port: number;
  /** `url` (a postgres:// URL of the target) with its host and port replaced by the proxy's. */
  via(url: string): string;
  /** The database stopped: every open connection is dropped and new ones are refused. */
  down(): Promise<void>;
  /**
   * The network lost its route: connections, open and new, are accepted and kept but nothing crosses
   * them either way. Nobody is told; only timeouts can tell.
   */
  blackHole(): void;
  /**
   * Forwards new connections again. Those held in the black hole stay as they were on the client's
   * side (silent, never closed) while the database's side is gone, as after a failover or a NAT
   * that forgot them: only the client's own timeouts can find out.
   */
  restore(): Promise<void>;
  /** From now on, what the database sends reaches the client this many milliseconds late, in order. */
  delayReplies(ms: number): void;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket | undefined;
  /** Nothing crosses: bytes either way are read and discarded. */
  held: boolean;
}

/** A proxy in front of the PostgreSQL server `databaseUrl` names (port 5432 when it names none). */
export function startProxyToDatabase(databaseUrl: string): Promise<TcpProxy> {
  const target = new URL(databaseUrl);
  return startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let mode: 'forward' | 'down' | 'black-hole' = 'forward';
  let replyDelayMs = 0;

  const drop = (pair: Pair) => {
    pairs.delete(pair);
    pair.client.destroy();
    pair.upstream?.destroy();
  };

  const server = net.createServer((client) => {
    const pair: Pair = { client, upstream: undefined, held: mode === 'black-hole' };
    pairs.add(pair);
    client.on('error', () => drop(pair));
    client.on('close', () => drop(pair));
    client.on('data', (chunk) => {
      if (!pair.held) pair.upstream?.write(chunk);
    });
    if (pair.held) return;
    const upstream = net.connect(target);
    pair.upstream = upstream;
    upstream.on('error', () => drop(pair));
    upstream.on('close', () => drop(pair));
    upstream.on('data', (chunk) => {
      if (pair.held) return;
      // Timers of one delay run in the order they were set: the bytes stay in order.
      if (replyDelayMs > 0) setTimeout(() => pair.held || client.write(chunk), replyDelayMs);
      else client.write(chunk);
    });
  });

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  // Not `listen(0)`: `restore` listens on the port again, and a port from the ephemeral range could
  // meanwhile be the local port of some outgoing connection.
  const port = await onFreePort(async (port) => {
    await listen(port);
    return port;
  });

  const stopListening = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const pair of [...pairs]) drop(pair);
    });

  return {
    port,
    via(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    async down() {
      if (mode === 'down') return;
      mode = 'down';
      await stopListening();
    },
    blackHole() {
      if (mode === 'down') throw new Error('restore the proxy before black-holing it');
      mode = 'black-hole';
      for (const pair of pairs) pair.held = true;
    },
    async restore() {
      if (mode === 'down') await listen(port);
      for (const pair of pairs) {
        if (!pair.held) continue;
        // Its upstream closing must not close the client's side: nothing tells the client.
        const upstream = pair.upstream;
        pair.upstream = undefined;
        upstream?.removeAllListeners();
        upstream?.on('error', () => {});
        upstream?.destroy();
      }
      mode = 'forward';
    },
    delayReplies(ms) {
      replyDelayMs = ms;
    },
    async close() {
      mode = 'down';
      await stopListening();
    },
  };
}
