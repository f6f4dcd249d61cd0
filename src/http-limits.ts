/**
 * What one client may hold of the HTTP server: sockets, time and header bytes (decision 0029).
 * Each default says why; `SWITCHBOARD_MAX_CONNECTIONS` sets `maxConnections`, tests shorten the rest.
 */
export interface HttpLimits {
  /**
   * Sockets open at once, default 10,000; the next ones are closed as soon as they are accepted.
   * Below the usual 20,000+ file descriptors a process may open, so idle sockets alone cannot
   * leave none for the database, the data dir and outbound requests.
   */
  maxConnections: number;
  /**
   * From a socket's first byte (or its accepting) to a request's last header, default 10 s: a client
   * that connects and sends nothing, or a header a byte at a time, is cut off; real clients send
   * their headers in one packet.
   */
  headersTimeoutMs: number;
  /**
   * A whole request, body included, default 30 s: the largest body (a provider's 4 MB end-of-call
   * report) crosses a slow 2 Mbit/s link in about 16 s.
   */
  requestTimeoutMs: number;
  /**
   * An idle kept-alive socket between requests, default 72 s (Fastify's): longer than load
   * balancers' own idle timeouts (60 s for AWS's), so they never send a request on a socket we are
   * closing.
   */
  keepAliveTimeoutMs: number;
  /**
   * Requests on one socket before it is closed (`Connection: close` on the last answer), default
   * 1,000: keep-alive still saves nearly every handshake, and no client pins its traffic to one
   * process behind a balancer for good.
   */
  maxRequestsPerSocket: number;
  /** Header bytes of one request, default 16 KiB (Node's): beyond, 431 before any route runs. */
  maxHeaderBytes: number;
  /**
   * Connections the kernel holds for us before we accept them, default 4,096 (Node's is 511, and
   * the kernel caps it at `net.core.somaxconn`): 2,000 clients connecting at once would otherwise
   * have their handshakes dropped and retried a second or more later, a health check among them.
   */
  listenBacklog: number;
  /**
   * How late a click-to-call refused for its credentials is answered (no token, a token nobody was
   * issued, a wrong signature), default 1 s on average (0.5 to 1.5 s): a flood of made-up tokens then sends one request per
   * connection a second, and real callers' requests do not wait behind it (`src/lib/refusal-pacer.ts`).
   */
  refusalDelayMs: number;
  /**
   * Refusals waiting for their delay at most, default 10,000 (one per connection the server
   * accepts): beyond, they are answered at once.
   */
  maxHeldRefusals: number;
}

export const HTTP_LIMITS: HttpLimits = Object.freeze({
  maxConnections: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 72_000,
  maxRequestsPerSocket: 1000,
  maxHeaderBytes: 16 * 1024,
  listenBacklog: 4096,
  refusalDelayMs: 1000,
  maxHeldRefusals: 10_000,
});

/** Fastify's server options for these limits; `maxConnections` is set on the server once made. */
export function httpServerOptions(limits: HttpLimits) {
  return {
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    maxRequestsPerSocket: limits.maxRequestsPerSocket,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      // Node looks for sockets past these timeouts every 30 s by default: a timeout of 10 s would
      // then hold a socket for up to 40 s.
      connectionsCheckingInterval: Math.min(1000, Math.ceil(limits.headersTimeoutMs / 4)),
    },
  };
}
