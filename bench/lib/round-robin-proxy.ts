/**
 * A small round-robin HTTP proxy standing in for the load balancer in front of several `api`
 * processes (bench/scale-out.ts). Run as a child (`startTsChild`) with `PROXY_PORT` and
 * `PROXY_BACKENDS` (a comma list of http://127.0.0.1:<port> origins); it prints `listening` once
 * it accepts connections. Each request goes to the next backend in turn over a keep-alive pool, so
 * the proxy costs one parse and one copy per request, not a TCP handshake: that cost is the same in
 * every configuration measured, a single backend included.
 */
import { Agent, createServer, type IncomingHttpHeaders, request } from 'node:http';

const port = Number(process.env.PROXY_PORT);
const backends = (process.env.PROXY_BACKENDS ?? '').split(',').map((origin) => {
  const url = new URL(origin);
  if (url.hostname !== '127.0.0.1' || url.protocol !== 'http:')
    throw new Error(`only http://127.0.0.1 backends: ${origin}`);
  // More sockets than the load generator's 50 connections: a request never waits for a free socket.
  return { host: url.hostname, port: Number(url.port), agent: new Agent({ keepAlive: true, maxSockets: 128 }) };
});
if (!port || backends.length === 0) throw new Error('PROXY_PORT and PROXY_BACKENDS are required');

/** Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te']);

function forwardable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) kept[name] = value;
  return kept;
}

let next = 0;
const server = createServer((incoming, answer) => {
  const backend = backends[next++ % backends.length]!;
  const upstream = request(
    {
      host: backend.host,
      port: backend.port,
      agent: backend.agent,
      method: incoming.method,
      path: incoming.url,
      headers: forwardable(incoming.headers),
    },
    (response) => {
      answer.writeHead(response.statusCode ?? 502, forwardable(response.headers));
      response.pipe(answer);
    },
  );
  upstream.on('error', (error) => {
    if (answer.headersSent) answer.destroy();
    else {
      answer.writeHead(502, { 'content-type': 'text/plain' });
      answer.end(`proxy: ${error.message}`);
    }
  });
  incoming.pipe(upstream);
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'));
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
