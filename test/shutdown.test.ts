import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';

function openConnection(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket));
    socket.once('error', reject);
  });
}

const closed = (socket: Socket) => new Promise<void>((resolve) => socket.once('close', () => resolve()));

describe('closing the server', () => {
  it('ends a connection that never sent a request (a browser preconnect) instead of waiting for it', async () => {
    const t = await startTestApp();
    const unused = await openConnection(t.url);
    unused.on('error', () => {});
    const ended = closed(unused);
    // A kept-alive connection that has served a request is ended by Node itself; both must go.
    expect((await t.request('GET', '/healthz')).status).toBe(200);
    // Without the fix, close() waits for the unused connection's 60 s headers timeout: past this test's 30 s.
    await t.close();
    await ended;
    expect(unused.bytesRead).toBe(0);
  });
});
