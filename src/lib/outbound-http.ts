/**
 * The HTTP client for calling customers' endpoints (tools during a call, webhooks). Customers pick
 * the URLs, so the client refuses non-public addresses, never follows redirects, bounds time and
 * response size, and reports every failure as a value with a message fit to show an AI agent.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Agent, buildConnector } from 'undici';
import { BlockedAddressError, blockedAddressReason } from './address-guard.js';

export interface OutboundClientOptions {
  /** Default false: refuse every non-public address, checked on the address actually connected. */
  allowPrivateNetworks?: boolean;
  /** Time allowed to resolve a name, and then to open the TCP (and TLS) connection; default 2000. */
  connectTimeoutMs?: number;
  /** How hostnames resolve; default node:dns lookup of all addresses. Injectable for tests (DNS rebinding). */
  resolve?: (hostname: string) => Promise<string[]>;
  /** Connections kept per origin, default 50. */
  connectionsPerOrigin?: number;
}

export interface OutboundRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Deadline for the whole exchange: resolving, connecting, headers and body. */
  timeoutMs: number;
  /** Bytes of response body kept; the rest is not read and `truncated` is set. */
  maxResponseBytes: number;
  /** Abandons the exchange (it then ends as an `aborted` failure), e.g. when the process shuts down. */
  signal?: AbortSignal;
}

export type OutboundFailure = {
  kind: 'blocked' | 'timeout' | 'connect' | 'dns' | 'network' | 'invalid' | 'aborted';
  message: string;
};

export type OutboundResult =
  | { ok: true; status: number; headers: Record<string, string>; body: Buffer; truncated: boolean; latencyMs: number }
  | { ok: false; failure: OutboundFailure; latencyMs: number };

export interface OutboundClient {
  /** Sends one request. Never throws: failures come back as `{ok: false, failure}`. */
  send(request: OutboundRequest): Promise<OutboundResult>;
  /**
   * `fetch` through the same guarded pool (no redirects followed), for SDKs that take a fetch
   * function (the providers'): their requests pass the private-address guard too.
   */
  fetch: typeof fetch;
  /** Makes the pool (loading undici) ahead of the first request, which would otherwise wait for it. */
  warm(): Promise<void>;
  /** Closes the pooled connections once requests under way are done. */
  close(): Promise<void>;
}

type Outcome = { ok: true; status: number; headers: Record<string, string>; body: Buffer; truncated: boolean };

async function lookupAll(hostname: string): Promise<string[]> {
  const addresses = await dns.lookup(hostname, { all: true, verbatim: true });
  return addresses.map((entry) => entry.address);
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME', 'EAI_FAIL', 'ETIMEOUT']);
const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EADDRNOTAVAIL']);
const CLOSED_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

function describeFailure(error: unknown, url: URL, timeoutMs: number, connectTimeoutMs: number): OutboundFailure {
  if (error instanceof BlockedAddressError) return { kind: 'blocked', message: error.message };
  const target = `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
  const code = errorCode(error) ?? '';
  const detail = error instanceof Error && error.message ? error.message : code || String(error);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return { kind: 'timeout', message: `No complete answer within ${timeoutMs} ms` };
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return { kind: 'connect', message: `Could not connect to ${target} within ${connectTimeoutMs} ms` };
  }
  if (DNS_CODES.has(code)) {
    const late = code === 'ETIMEOUT' ? ` within ${connectTimeoutMs} ms` : '';
    return { kind: 'dns', message: `Could not resolve host ${url.hostname}${late}` };
  }
  if (code === 'ECONNREFUSED') return { kind: 'connect', message: `Connection refused by ${target}` };
  if (UNREACHABLE_CODES.has(code)) return { kind: 'connect', message: `Could not reach ${target} (${code})` };
  if (CLOSED_CODES.has(code)) {
    return { kind: 'network', message: `Connection to ${target} closed before a complete answer` };
  }
  if (code === 'UND_ERR_INVALID_ARG') return { kind: 'invalid', message: `Invalid request: ${detail}` };
  if (code.startsWith('ERR_TLS_') || /CERT|SSL|TLS/.test(code)) {
    return { kind: 'network', message: `TLS with ${target} failed: ${detail}` };
  }
  return { kind: 'network', message: `Request to ${target} failed: ${detail}` };
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/**
 * Creates a client with its own connection pool. The address check runs when a connection is
 * opened, on the very address connected to, so a name that resolves to a public address once and
 * to a private one later (DNS rebinding) is refused on the later connection.
 */
export function createOutboundClient(options: OutboundClientOptions = {}): OutboundClient {
  const allowPrivateNetworks = options.allowPrivateNetworks ?? false;
  const connectTimeoutMs = options.connectTimeoutMs ?? 2000;
  const resolve = options.resolve ?? lookupAll;

  // A resolver that never answers would otherwise hold the pool's connection slot (and close()) forever.
  async function resolveInTime(hostname: string): Promise<string[]> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(Object.assign(new Error(`Resolving ${hostname} took too long`), { code: 'ETIMEOUT' }));
      }, connectTimeoutMs);
    });
    try {
      return await Promise.race([resolve(hostname), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function chooseAddress(hostname: string): Promise<string> {
    const addresses = isIP(hostname) ? [hostname] : await resolveInTime(hostname);
    const first = addresses[0];
    if (first === undefined) {
      throw Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' });
    }
    if (allowPrivateNetworks) return first;
    const allowed = addresses.find((address) => blockedAddressReason(address) === undefined);
    if (allowed !== undefined) return allowed;
    throw new BlockedAddressError(first, blockedAddressReason(first) ?? 'not allowed', hostname);
  }

  const guardedConnector =
    (connectTo: buildConnector.connector): buildConnector.connector =>
    (connectOptions, callback) => {
      const hostname = connectOptions.hostname.replace(/^\[(.*)\]$/, '$1');
      chooseAddress(hostname).then(
        (address) => {
          const servername = isIP(hostname) ? undefined : hostname;
          try {
            // The checked address itself, not the name: handing the name on would let it resolve again.
            connectTo({ ...connectOptions, hostname: address, servername }, callback);
          } catch (error) {
            callback(error as Error, null);
          }
        },
        (error: Error) => callback(error, null),
      );
    };

  // undici is loaded with the first request: a server that never calls out does not pay its memory.
  let agent: Promise<Agent> | undefined;
  const agentOf = (): Promise<Agent> =>
    (agent ??= import('undici').then(
      ({ Agent, buildConnector }) =>
        new Agent({
          connect: guardedConnector(buildConnector({ timeout: connectTimeoutMs })),
          connections: options.connectionsPerOrigin ?? 50,
        }),
    ));

  async function exchange(request: OutboundRequest, url: URL, signal: AbortSignal): Promise<Outcome> {
    const response = await (await agentOf()).request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: request.method,
      headers: request.headers,
      body: request.body ?? null,
      signal,
      headersTimeout: request.timeoutMs,
      bodyTimeout: request.timeoutMs,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      const room = request.maxResponseBytes - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size += room;
        truncated = true;
        // Not reading the rest: the connection is dropped rather than drained.
        response.body.destroy();
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
    const headers = flattenHeaders(response.headers);
    return { ok: true, status: response.statusCode, headers, body: Buffer.concat(chunks, size), truncated };
  }

  async function send(request: OutboundRequest): Promise<OutboundResult> {
    const started = performance.now();
    const finish = (outcome: Outcome | OutboundFailure): OutboundResult => {
      const latencyMs = performance.now() - started;
      return 'ok' in outcome ? { ...outcome, latencyMs } : { ok: false, failure: outcome, latencyMs };
    };
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return finish({ kind: 'invalid', message: 'The URL is not valid' });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return finish({ kind: 'invalid', message: `Only http and https URLs are allowed, not ${url.protocol}` });
    }
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    // undici only notices an abort once a connection is ready, so the deadline is raced here too.
    const deadline = new Promise<OutboundFailure>((settle) => {
      timer = setTimeout(() => {
        controller.abort();
        settle({ kind: 'timeout', message: `No complete answer within ${request.timeoutMs} ms` });
      }, request.timeoutMs);
      onAbort = () => {
        controller.abort();
        settle({ kind: 'aborted', message: 'The request was abandoned' });
      };
      if (request.signal?.aborted) onAbort();
      else request.signal?.addEventListener('abort', onAbort, { once: true });
    });
    const outcome = exchange(request, url, controller.signal).catch((error: unknown) =>
      describeFailure(error, url, request.timeoutMs, connectTimeoutMs),
    );
    try {
      return finish(await Promise.race([outcome, deadline]));
    } finally {
      clearTimeout(timer);
      if (onAbort) request.signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    send,
    fetch: (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
      const [{ fetch: undiciFetch }, dispatcher] = await Promise.all([import('undici'), agentOf()]);
      return undiciFetch(input as never, { ...(init as object), redirect: 'manual', dispatcher } as never);
    }) as unknown as typeof fetch,
    async warm() {
      await agentOf();
    },
    async close() {
      await (await agent)?.close();
    },
  };
}
