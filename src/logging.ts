import type { FastifyServerOptions } from 'fastify';
import pino from 'pino';
import { LOG_REDACTION } from './lib/log-redaction.js';

/**
 * How `switchboard serve` writes its log: `json`, one JSON object per line for a log collector,
 * or `pretty`, one readable line per event for a person at a terminal. `auto` (the default of
 * `SWITCHBOARD_LOG_FORMAT`) is `pretty` when standard output is a terminal, else `json`
 * (decision 0034).
 */
export type LogFormat = 'auto' | 'json' | 'pretty';

export function resolveLogFormat(setting: LogFormat, stdoutIsTerminal: boolean): 'json' | 'pretty' {
  if (setting === 'auto') return stdoutIsTerminal ? 'pretty' : 'json';
  return setting;
}

type LogLine = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');

/**
 * The readable form of a line: its message, and for a request what it was and how it ended
 * (`GET /v1/agents → 200 in 3 ms`), whichever of the request and the response the line holds.
 */
export function readableMessage(log: LogLine, messageKey = 'msg'): string {
  const message = text(log[messageKey]);
  const req = (log.req ?? {}) as LogLine;
  const res = (log.res ?? {}) as LogLine;
  const request = req.method ? `${text(req.method)} ${text(req.url)}` : '';
  const took = typeof log.responseTime === 'number' ? ` in ${Math.round(log.responseTime)} ms` : '';
  const outcome = res.statusCode !== undefined ? `${text(res.statusCode)}${took}` : '';
  // A warning or an error names its request, which the client saw in `x-request-id`.
  const requestId = typeof log.level === 'number' && log.level >= 40 && log.reqId ? `(${text(log.reqId)})` : '';
  if (request && outcome) return [`${request} → ${outcome}`, requestId].filter(Boolean).join(' ');
  return [message, request, outcome, requestId].filter(Boolean).join(' ');
}

/** The requests whose "incoming request" line waits for its "request completed", at most. */
const PENDING_REQUESTS_KEPT = 1000;

/**
 * Turns pino's JSON lines into readable ones through `format`: a request's two lines ("incoming
 * request", "request completed") become one, written when it completes, with what it was
 * (`GET /v1/agents → 200 in 3 ms`). A line that is not JSON passes through as it is.
 */
export function readableLines(format: (log: LogLine) => string, write: (line: string) => void) {
  const incoming = new Map<unknown, unknown>();
  return {
    write(line: string): void {
      let log: LogLine;
      try {
        log = JSON.parse(line) as LogLine;
      } catch {
        write(line);
        return;
      }
      if (log.msg === 'incoming request' && log.reqId !== undefined && log.req !== undefined) {
        incoming.set(log.reqId, log.req);
        // A request that never completes (its socket died first) is forgotten after enough others.
        if (incoming.size > PENDING_REQUESTS_KEPT) incoming.delete(incoming.keys().next().value);
        return;
      }
      if (log.res !== undefined && log.req === undefined && incoming.has(log.reqId)) {
        log = { ...log, req: incoming.get(log.reqId) };
        incoming.delete(log.reqId);
      }
      write(format(log));
    },
  };
}

/** Standard output for JSON lines with a budget: what `boundedLogDestination` returns. */
export interface LogDestination {
  /** The stream pino writes the lines to. */
  stream: ReturnType<typeof pino.destination>;
  /** Lines dropped since the process started, because the budget was full. */
  droppedLines(): number;
  /**
   * `report` is called, once standard output has caught up, with the lines dropped since it was last
   * called: the service logs them as one warning (it is itself a line, written once there is room).
   */
  onCaughtUp(report: (dropped: number) => void): void;
}

/**
 * Standard output for the JSON lines, written as pino writes it by default (sonic-boom, without
 * blocking the event loop) but with a budget: at most `budgetBytes` of lines wait for a standard
 * output that is not read fast enough (a log collector that stalled). A line that would go past the
 * budget is dropped and counted, where it would have grown the process without bound (decision
 * 0074).
 */
export function boundedLogDestination(budgetBytes: number): LogDestination {
  const stream = pino.destination({ sync: false, maxLength: budgetBytes });
  let dropped = 0;
  let reported = 0;
  let report: (dropped: number) => void = () => {};
  stream.on('drop', () => {
    dropped += 1;
  });
  // 'drain': everything waiting has been written (sonic-boom emits it each time it catches up).
  stream.on('drain', () => {
    if (dropped === reported) return;
    const since = dropped - reported;
    reported = dropped;
    report(since);
  });
  return {
    stream,
    droppedLines: () => dropped,
    onCaughtUp(callback) {
      report = callback;
    },
  };
}

/**
 * Fastify's logger option for `serve`: pino at `level`, secrets censored (`LOG_REDACTION`), written as JSON or,
 * for a person, by pino-pretty on one line per event (loaded only then: a process without a
 * terminal does not pay for it).
 */
export async function serviceLogger(options: {
  level: string;
  format: 'json' | 'pretty';
  /** Where readable lines go; default standard output. */
  write?: (line: string) => void;
  /** Where JSON lines go; default pino's own standard output, which has no budget. */
  destination?: LogDestination;
}): Promise<FastifyServerOptions['logger']> {
  const { level, format, write = (line) => process.stdout.write(line), destination } = options;
  if (format === 'json') return { level, ...LOG_REDACTION, ...(destination ? { stream: destination.stream } : {}) };
  const { prettyFactory } = await import('pino-pretty');
  const pretty = prettyFactory({
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    // What the message already says, and what a person does not need on every line.
    ignore: 'pid,hostname,reqId,req,res,responseTime',
    messageFormat: (log, messageKey) => readableMessage(log, messageKey),
  });
  return { level, ...LOG_REDACTION, stream: readableLines(pretty, write) };
}
