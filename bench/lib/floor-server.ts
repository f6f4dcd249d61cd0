/**
 * The floor: the least a click-to-call endpoint can do, on bare `node:http`. Reads the body,
 * checks the hex HMAC-SHA256 `signature` header in constant time, parses the JSON, answers a small
 * JSON. Run as its own child process by bench/click-to-call.ts (env FLOOR_PORT, FLOOR_SECRET).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';

const port = Number(process.env.FLOOR_PORT);
const secret = process.env.FLOOR_SECRET ?? '';
const MAX_BODY = 64 * 1024;
const HEX_DIGEST = /^[0-9a-f]{64}$/;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') return send(res, 200, { status: 'ok' });
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY) {
      send(res, 413, { success: false });
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (res.headersSent) return;
    const body = Buffer.concat(chunks);
    const signature = req.headers.signature;
    const expected = createHmac('sha256', secret).update(body).digest();
    const valid =
      typeof signature === 'string' &&
      HEX_DIGEST.test(signature) &&
      timingSafeEqual(expected, Buffer.from(signature, 'hex'));
    if (!valid) return send(res, 403, { success: false, code: 'ctc:006' });
    let parsed: { phone?: unknown };
    try {
      parsed = JSON.parse(body.toString('utf8')) as { phone?: unknown };
    } catch {
      return send(res, 400, { success: false, code: 'ctc:009' });
    }
    send(res, 200, { success: true, phone: parsed.phone, status: 'queued' });
  });
});

server.listen(port, '127.0.0.1');

function stop(): void {
  server.close(() => process.exit(0));
  server.closeAllConnections();
}
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
// Stops by itself when the benchmark goes away, or at the latest after 10 minutes.
process.once('disconnect', stop);
setTimeout(stop, 10 * 60_000).unref();
