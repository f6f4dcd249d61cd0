import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import type { AgentsService } from '../agents/agents.service.js';
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
  agents: Pick<AgentsService, 'isSurelyUnknownToken'>;
  refusals: RefusalPacer;
  metrics: Metrics;
  /** The root logger: its lines carry the request's id as Fastify's child loggers do. */
  log: FastifyBaseLogger;
  /** Fastify's log controller, whose throttle sums up the refusals logged quietly. */
  requestLog: RequestLogController;
  /** True once the server is closing: Fastify answers those requests (503 and `Connection: close`). */
  closing: () => boolean;
  /**
   * Whether some proxies are trusted (`SWITCHBOARD_TRUSTED_PROXIES`): their `X-Forwarded-*` headers
   * then change the address and host Fastify logs, so a request that carries one is Fastify's.
   */
  trustsProxies: boolean;
}

/** Headers whose meaning depends on `trustProxy`. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto'];

/**
 * Whether the request is the common case the direct path answers: `POST /api/click-to-call` with
 * no query, a body of a declared length within the route's limit, a token memory knows, and, when
 * proxies are trusted, nothing a proxy added. Everything else (no token or an unknown one, a chunked
 * or oversized body, a request through a trusted proxy, a server closing) goes to the Fastify
 * route, which answers it as documented.
 */
function isCommonCase(req: IncomingMessage, { agents, trustsProxies }: DirectClickToCallDeps): boolean {
  if (req.method !== 'POST' || req.url !== CLICK_TO_CALL_PATH) return false;
  const { headers } = req;
  if (headers['transfer-encoding'] !== undefined || headers['content-type'] === undefined) return false;
  const length = Number(headers['content-length']);
  if (!Number.isSafeInteger(length) || length <= 0 || length > MAX_BODY_BYTES) return false;
  if (trustsProxies) for (const name of FORWARDING_HEADERS) if (headers[name] !== undefined) return false;
  const apiKey = header(headers['api-key']);
  // A token memory does not know (or must wait for the change feed to know) is refused before its
  // body is read, paced (decision 0029): the Fastify route's work.
  return apiKey !== undefined && apiKey !== '' && agents.isSurelyUnknownToken(apiKey) === false;
}

/** What Fastify's request serializer reads of a request (method, URL, host, address), no proxy trusted. */
function loggedRequest(req: IncomingMessage) {
  return {
    method: req.method,
    url: req.url,
    headers: req.headers,
    host: req.headers.host,
    ip: req.socket.remoteAddress,
    socket: req.socket,
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

  function answer(req: IncomingMessage, res: ServerResponse, requestId: string, startedAt: number, rawBody: Buffer) {
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
    if (deps.closing() || !isCommonCase(req, deps)) return false;
    answered++;
    const startedAt = performance.now();
    const requestId = newId('req');
    if (log.level === 'debug' || log.level === 'trace')
      log.debug({ reqId: requestId, req: loggedRequest(req) }, 'incoming request');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () =>
      answer(req, res, requestId, startedAt, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)),
    );
    // The client went away before its body arrived: nothing to answer.
    req.on('error', () => res.destroy());
    return true;
  }
  return { handle, answered: () => answered };
}
