import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { createLogThrottle, type LogThrottle } from './log-throttle.js';

/**
 * How requests are logged (decision 0029): one line per request at info, when it is answered
 * ("request completed", with its status and time; Fastify's "incoming request" line is at debug),
 * except for
 * - the probes that orchestrators and Prometheus send every few seconds (`/healthz`, `/readyz`,
 *   `/metrics`): at debug, so they do not drown the lines people read;
 * - requests refused before anything was read for lack of credentials (`logQuietly`): at debug, and
 *   one info line per kind every 10 s says how many there were, so a flood of made-up tokens
 *   cannot become a flood of log lines.
 */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/** Requests to log quietly, with the line that sums them up. */
const quiet = new WeakMap<FastifyRequest, string>();

/** What a request's own lines carry besides its id, e.g. the call it is about (`logCallId`). */
const extraFields = new WeakMap<FastifyRequest, Record<string, string>>();

/**
 * Adds `fields` to the lines written about the request from now on: its "request completed" or
 * "request errored" line, and the error handler's "request failed". Kept beside the request rather
 * than in a child logger, which cost about 5 µs a request to make (its bindings are redacted too).
 */
export function addRequestLogFields(request: FastifyRequest, fields: Record<string, string>): void {
  extraFields.set(request, { ...extraFields.get(request), ...fields });
}

/** The fields `addRequestLogFields` added to the request, to spread into a line about it. */
export function requestLogFields(request: FastifyRequest): Record<string, string> | undefined {
  return extraFields.get(request);
}

/** The request's completion is logged at debug; `summary` is said once every 10 s at info, with how many were. */
export function logQuietly(request: FastifyRequest, summary: string): void {
  quiet.set(request, summary);
}

function pathOf(request: FastifyRequest): string {
  const url = request.raw.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

export class RequestLogController extends LogController {
  readonly #throttle: LogThrottle;

  constructor(throttle: LogThrottle = createLogThrottle()) {
    super();
    this.#throttle = throttle;
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const fields = extraFields.get(request);
    if (error) {
      reply.log.error({ res: reply, err: error, responseTime: reply.elapsedTime, ...fields }, 'request errored');
      return;
    }
    const summary = quiet.get(request);
    if (summary !== undefined) {
      this.summarise(reply.log, summary, { res: reply });
      return;
    }
    const level = PROBE_PATHS.has(pathOf(request)) ? 'debug' : 'info';
    reply.log[level]({ req: request, res: reply, responseTime: reply.elapsedTime, ...fields }, 'request completed');
  }

  /**
   * A request logged quietly: `summary` at info once every 10 s, with `fields` and how many more
   * there were since. Also for the click-to-call requests answered before Fastify (decision 0105).
   */
  summarise(log: FastifyBaseLogger, summary: string, fields: Record<string, unknown>): void {
    this.#throttle(summary, (suppressed) =>
      log.info(
        { ...fields, suppressed },
        suppressed > 0 ? `${summary} (and ${suppressed} more since the last such line)` : summary,
      ),
    );
  }
}
