import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { bearerOf } from './authenticate.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF protection for the management API (decision 0024). A browser sends the session cookie with
 * requests another site makes it send, so a write is refused when the browser says it comes from
 * elsewhere: `Sec-Fetch-Site` other than `same-origin` / `none`, or an `Origin` whose host is not
 * this server's. Every current browser sends one of them on a POST, PATCH or DELETE. Requests
 * with an `Authorization: Bearer` key are not at risk (no browser adds one by itself, and beside
 * it the cookie is not used), and clients that are not browsers send neither header, so both
 * pass. Any other `Authorization` (`Basic …`, which a browser does attach by itself) is checked
 * like a cookie (decision 0030). The session cookie is also `SameSite=Lax`: this is the second
 * lock, for the browsers and the same-site subdomains that lock leaves open.
 */
export async function refuseCrossSiteWrites(request: FastifyRequest): Promise<void> {
  if (SAFE_METHODS.has(request.method) || bearerOf(request)) return;
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  if (
    (site !== undefined && site !== 'same-origin' && site !== 'none') ||
    (origin !== undefined && !sameHost(origin, request.host))
  ) {
    throw new ApiError('forbidden', 'A request from another site cannot change anything here');
  }
}

function sameHost(origin: string, host: string): boolean {
  try {
    return new URL(origin).host.toLowerCase() === host.toLowerCase();
  } catch {
    // "null" (a sandboxed frame, a redirect across origins) or garbage: not this server.
    return false;
  }
}
