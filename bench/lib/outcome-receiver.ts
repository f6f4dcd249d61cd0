/**
 * A customer's webhook receiver for bench/scale-out.ts, run as a child (`startTsChild`) with
 * `RECEIVER_PORT`: answers every POST 200 as soon as it has read it, and records each delivery
 * (path, `webhook-id` header, the body's `callId`, arrival time) so that the benchmark can check
 * every accepted call was delivered exactly once per integration. A separate process, so that its
 * CPU is not counted as the benchmark's own and its event loop is not shared with the bench.
 *
 * `GET /deliveries` returns what was recorded as columns, `GET /count` how many, `DELETE /deliveries`
 * starts over. Prints `listening` once ready.
 */
import { createServer } from 'node:http';

const port = Number(process.env.RECEIVER_PORT);
if (!port) throw new Error('RECEIVER_PORT is required');

let paths: string[] = [];
let webhookIds: string[] = [];
let callIds: string[] = [];
/** ms since the epoch (Date.now()), comparable with the database's timestamps on this machine. */
let arrivedAt: number[] = [];

const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/count') return void response.end(String(paths.length));
  if (request.method === 'GET' && request.url === '/deliveries') {
    response.writeHead(200, { 'content-type': 'application/json' });
    return void response.end(JSON.stringify({ paths, webhookIds, callIds, arrivedAt }));
  }
  if (request.method === 'DELETE' && request.url === '/deliveries') {
    paths = [];
    webhookIds = [];
    callIds = [];
    arrivedAt = [];
    return void response.end();
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let callId = '';
    try {
      callId = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { callId?: unknown }).callId ?? '');
    } catch {}
    paths.push(request.url ?? '');
    webhookIds.push(String(request.headers['webhook-id'] ?? ''));
    callIds.push(callId);
    arrivedAt.push(Date.now());
    response.writeHead(200);
    response.end();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'));
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
