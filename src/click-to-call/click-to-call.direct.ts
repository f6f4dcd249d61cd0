import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyBaseLogger } from 'fastify';
import type { AgentsService } from '../agents/agents.service.js';
import { apiTokenHash } from '../agents/credentials.js';
import { newId } from '../lib/ids.js';
import type { RefusalPacer } from '../lib/refusal-pacer.js';
import type { RequestLogController } from '../lib/request-log.js';
import type { Metrics } from '../metrics/metrics.js';
import { CLICK_TO_CALL_PATH, header, PACED_CODES, refusedSummary } from './click-to-call.routes.js';
import type { ClickToCallService } from './click-to-call.service.js';
import { type CtcResponse, ctcError } from './ctc-errors.js';
import { MAX_BODY_BYTES } from './request-body.js';

export interface DirectClickToCallDeps {
  clickToCall: ClickToCallService;
  agents: Pick<AgentsService, 'isSurelyUnknownTokenHash'>;
  refusals: RefusalPacer;
  metrics: Metrics;
  /** The root logger: its lines carry the request's id as Fastify's child loggers do. */
  log: FastifyBaseLogger;
  /** Fastify's log controller, whose throttle sums up the refusals logged quietly. */
  requestLog: RequestLogController;
  /** True once the server is closing: Fastify answers those requests (503 and `Connection: close`). */
  closing: () => boolean;
  /**
   * The proxies trusted (`SWITCHBOARD_TRUSTED_PROXIES`, Fastify's `trustProxy`): their
   * `X-Forwarded-For` and `X-Forwarded-Host` name the client and the host the log line shows.
   */
  trustedProxies: boolean | string;
}

/**
 * Whether the request is the common case the direct path answers: `POST /api/click-to-call` with
 * no query, a body of a declared length within the route's limit, and a token memory knows. Returns
 * that token's hash, which the service then looks the agent up by, or undefined. Everything else
 * (no token or an unknown one, a chunked or oversized body, a server closing) goes to the Fastify
 * route, which answers it as documented.
 */
function commonCaseTokenHash(req: IncomingMessage, { agents }: DirectClickToCallDeps): string | undefined {
  if (req.method !== 'POST' || req.url !== CLICK_TO_CALL_PATH) return undefined;
  const { headers } = req;
  if (headers['transfer-encoding'] !== undefined || headers['content-type'] === undefined) return undefined;
  const length = Number(headers['content-length']);
  if (!Number.isSafeInteger(length) || length <= 0 || length > MAX_BODY_BYTES) return undefined;
  const apiKey = header(headers['api-key']);
  if (apiKey === undefined || apiKey === '') return undefined;
  // A token memory does not know (or must wait for the change feed to know) is refused before its
  // body is read, paced (decision 0029): the Fastify route's work.
  const tokenHash = apiTokenHash(apiKey);
  return agents.isSurelyUnknownTokenHash(tokenHash) === false ? tokenHash : undefined;
}

/** What the direct path learned of a request before its body arrived. */
interface Received {
  requestId: string;
  startedAt: number;
  apiKeyHash: string;
}

/** A request's client address and host, as Fastify's `request.ip` and `request.host` read them. */
interface ClientReader {
  ip(req: IncomingMessage): string | undefined;
  host(req: IncomingMessage): string | undefined;
}

/** With no proxy trusted: the socket's peer, and the `Host` header. */
const DIRECT_CLIENT: ClientReader = {
  ip: (req) => req.socket.remoteAddress,
  host: (req) => req.headers.host,
};

/**
 * With proxies trusted: what Fastify 5's request reads (fastify/lib/request.js), with the same
 * library and the same trust function. The client is the last address of `X-Forwarded-For` walked
 * back from the socket's peer through the trusted proxies; the host is the last entry of
 * `X-Forwarded-Host` when the peer is trusted, else `Host` (decision 0117).
 */
function clientReader(trustedProxies: boolean | string): ClientReader {
  if (trustedProxies === false) return DIRECT_CLIENT;
  const trusts =
    trustedProxies === true ? () => true : proxyAddr.compile(trustedProxies.split(',').map((entry) => entry.trim()));
  return {
    ip(req) {
      const addresses = proxyAddr.all(req, trusts);
      return addresses[addresses.length - 1];
    },
    host(req) {
      // Node joins a repeated X-Forwarded-Host with ", ": a string.
      const forwarded = req.headers['x-forwarded-host'] as string | undefined;
      if (forwarded && trusts(req.socket.remoteAddress ?? '', 0)) {
        const last = forwarded.lastIndexOf(',');
        return last === -1 ? forwarded.trim() : forwarded.slice(last + 1).trim();
      }
      return req.headers.host ?? '';
    },
  };
}

/**
 * `POST /api/click-to-call` answered on Node's HTTP server, before Fastify (decision 0105): the
 * same service, answers, headers, pacing, log line and metrics as the Fastify route, without the
 * framework's request and reply objects, hooks and child logger, which were about a fifth of the
 * process's CPU per accepted call. `handle` answers the common case and returns true, or returns
 * false, having read nothing, for Fastify to answer the request; `answered` counts the first.
 */
export function createDirectClickToCall(deps: DirectClickToCallDeps) {
  const { clickToCall, refusals, metrics, log, requestLog } = deps;
  const client = clientReader(deps.trustedProxies);
  /** What Fastify's request serializer reads of a request (method, URL, host, address). */
  const loggedRequest = (req: IncomingMessage) => ({
    method: req.method,
    url: req.url,
    headers: req.headers,
    host: client.host(req),
    ip: client.ip(req),
    socket: req.socket,
  });

  function answer(
    req: IncomingMessage,
    res: ServerResponse,
    { requestId, startedAt, apiKeyHash }: Received,
    rawBody: Buffer,
  ) {
    const respond = (response: CtcResponse) => {
      // Refusals of a caller without credentials are answered late and summed up in the log (decision 0029).
      const paced = PACED_CODES.has(String(response.body.code));
      const send = () => {
        const text = JSON.stringify(response.body);
        res.writeHead(response.status, {
          'x-request-id': requestId,
          // No answer is sniffed into another type (decision 0030).
          'x-content-type-options': 'nosniff',
          ...response.headers,
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(text),
        });
        res.end(text);
        const responseTime = performance.now() - startedAt;
        metrics.http.observe(CLICK_TO_CALL_PATH, 'POST', response.status, responseTime / 1000);
        // The lines Fastify's log controller writes (src/lib/request-log.ts), field for field.
        const logged = { statusCode: response.status };
        if (paced) requestLog.summarise(log, refusedSummary(response.body.code), { reqId: requestId, res: logged });
        else {
          const { callId } = response.body;
          const about = typeof callId === 'string' ? { callId } : {};
          log.info(
            { reqId: requestId, req: loggedRequest(req), res: logged, responseTime, ...about },
            'request completed',
          );
        }
      };
      if (paced) refusals.pace(send);
      else send();
    };
    clickToCall
      .trigger({
        requestId,
        apiKey: header(req.headers['api-key']),
        apiKeyHash,
        signature: header(req.headers.signature),
        signatureTimestamp: header(req.headers['signature-timestamp']),
        idempotencyKey: header(req.headers['idempotency-key']),
        rawBody,
      })
      .catch((error: unknown) => {
        // `trigger` answers every failure it knows of; this is the route's error handler's 500.
        log.error({ reqId: requestId, err: error }, 'click-to-call failed');
        return ctcError('ctc:008', requestId);
      })
      .then(respond);
  }

  let answered = 0;
  function handle(req: IncomingMessage, res: ServerResponse): boolean {
    if (deps.closing()) return false;
    const apiKeyHash = commonCaseTokenHash(req, deps);
    if (apiKeyHash === undefined) return false;
    answered++;
    const startedAt = performance.now();
    const requestId = newId('req');
    if (log.level === 'debug' || log.level === 'trace')
      log.debug({ reqId: requestId, req: loggedRequest(req) }, 'incoming request');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () =>
      answer(
        req,
        res,
        { requestId, startedAt, apiKeyHash },
        chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks),
      ),
    );
    // The client went away before its body arrived: nothing to answer.
    req.on('error', () => res.destroy());
    return true;
  }
  return { handle, answered: () => answered };
}
