/**
 * What the floor servers (floor-server.ts, durable-floor-server.ts, provider-floor-server.ts) share:
 * each is a bare `node:http` process doing by hand the least its path has to do, and these are the
 * parts every such path does the same way.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

const HEX_DIGEST = /^[0-9a-f]{64}$/;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** The whole body, at most `maxBytes` (413 beyond, and the request is dropped), then `then(body)`. */
export function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  then: (body: Buffer) => void,
  tooLarge: unknown = { success: false },
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      sendJson(res, 413, tooLarge);
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (!res.headersSent) then(Buffer.concat(chunks));
  });
}

/** Whether `signature` is the hex HMAC-SHA256 of `body` with `secret`, compared in constant time. */
export function validHexHmac(secret: string, body: Buffer, signature: string | string[] | undefined): boolean {
  const expected = createHmac('sha256', secret).update(body).digest();
  return (
    typeof signature === 'string' &&
    HEX_DIGEST.test(signature) &&
    timingSafeEqual(expected, Buffer.from(signature, 'hex'))
  );
}

/**
 * Listens on 127.0.0.1:`port` and stops on SIGTERM or SIGINT, when the benchmark that started this
 * process goes away, or at the latest after 10 minutes; `cleanUp` (a pool to end) runs before it exits.
 */
export function listenUntilStopped(server: Server, port: number, cleanUp?: () => Promise<void>): void {
  server.listen(port, '127.0.0.1');
  const stop = () => {
    server.close(() => {
      void (cleanUp?.() ?? Promise.resolve()).finally(() => process.exit(0));
    });
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('disconnect', stop);
  setTimeout(stop, 10 * 60_000).unref();
}
