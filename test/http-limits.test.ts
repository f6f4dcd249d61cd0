import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_LIMITS } from '../src/http-limits.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { rawRequest } from './helpers/raw-http.js';

// The HTTP server's limits (decision 0029), each shown on real sockets on loopback. The timeouts
// are shortened for the test; the defaults are checked as configured.

/** A socket to the app, and a promise of everything it received once the server closed it. */
function openSocket(url: string): Promise<{ socket: Socket; closed: Promise<string> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    const closed = new Promise<string>((done) => socket.on('close', () => done(received)));
    socket.once('error', () => {});
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** Sends `GET /healthz` on the socket and waits for its whole answer (it has a Content-Length). */
async function getOn(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const split = received.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(received)?.[1] ?? Number.NaN);
      if (split >= 0 && received.length >= split + 4 + length) {
        socket.off('data', onData);
        resolve(received);
      }
    };
    socket.on('data', onData);
    socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
  });
}

describe('HTTP limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SWITCHBOARD_MAX_CONNECTIONS: '4' }, undefined, {
      httpLimits: { headersTimeoutMs: 400, requestTimeoutMs: 600, keepAliveTimeoutMs: 300, maxRequestsPerSocket: 3 },
    });
  });
  afterAll(() => t.close());

  it('has the documented defaults', async () => {
    const d = await startTestApp();
    try {
      expect(d.app.server.maxConnections).toBe(HTTP_LIMITS.maxConnections);
      expect(d.app.server.headersTimeout).toBe(10_000);
      expect(d.app.server.requestTimeout).toBe(30_000);
      expect(d.app.server.keepAliveTimeout).toBe(72_000);
      expect(d.app.server.maxRequestsPerSocket).toBe(1000);
      expect(d.app.server.maxConnections).toBe(10_000);
    } finally {
      await d.close();
    }
  });

  it('closes a socket that never sends a request', async () => {
    const { closed } = await openSocket(t.url);
    // Before the limits, Node waited 60 s (checked every 30 s): the test would time out.
    await closed;
  });

  it('closes a socket whose headers come too slowly', async () => {
    const { socket, closed } = await openSocket(t.url);
    socket.write('GET /healthz HTTP/1.1\r\nHost: local');
    expect(await closed).toMatch(/^HTTP\/1\.1 408/);
  });

  it('answers 408 to a request whose body never finishes', async () => {
    const { socket, closed } = await openSocket(t.url);
    socket.write(
      'POST /v1/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email"',
    );
    expect(await closed).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a kept-alive socket left idle after its request', async () => {
    const { socket, closed } = await openSocket(t.url);
    expect(await getOn(socket)).toMatch(/^HTTP\/1\.1 200/);
    await closed;
  });

  it('closes a socket after maxRequestsPerSocket requests', async () => {
    const { socket, closed } = await openSocket(t.url);
    expect(await getOn(socket)).toMatch(/connection: keep-alive/i);
    expect(await getOn(socket)).toMatch(/connection: keep-alive/i);
    expect(await getOn(socket)).toMatch(/connection: close/i);
    await closed;
  });

  it('answers 431 to headers over 16 KiB, before any route', async () => {
    const d = await startTestApp();
    try {
      const response = await rawRequest(d.url, {
        method: 'POST',
        path: '/api/click-to-call',
        headers: [['x-padding', 'a'.repeat(17 * 1024)]],
        body: Buffer.from('{}'),
      });
      expect(response.status).toBe(431);
    } finally {
      await d.close();
    }
  });

  it('refuses connections above the cap, and takes new ones once sockets close', async () => {
    const held = await Promise.all([1, 2, 3, 4].map(() => openSocket(t.url)));
    // The fifth is accepted by the kernel and closed by the server at once, nothing answered.
    const extra = await openSocket(t.url);
    extra.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(await extra.closed).toBe('');
    for (const { socket } of held) socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    const after = await openSocket(t.url);
    expect(await getOn(after.socket)).toMatch(/^HTTP\/1\.1 200/);
    after.socket.destroy();
  });
});
