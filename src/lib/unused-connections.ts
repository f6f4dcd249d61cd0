import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * On close, ends the connections that never sent a byte. Node's `server.close()` ends idle
 * keep-alive connections, but leaves a connection that has not sent a request yet open until its
 * headers timeout (60 s): a browser's speculative preconnect held every shutdown for a minute.
 * Nothing was asked on such a connection, so nothing is lost; a request under way still finishes.
 */
export function closeUnusedConnectionsOnClose(app: FastifyInstance): void {
  const connections = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  app.addHook('preClose', (done) => {
    for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
    done();
  });
}
