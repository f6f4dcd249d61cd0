import { constants, openSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';
import type { FastifyServerOptions } from 'fastify';
import sonicBoom from 'sonic-boom';
import { formatCount } from './lib/format-count.js';
import { LOG_REDACTION } from './lib/log-redaction.js';

// sonic-boom is CommonJS: its export is the class, which also names itself `SonicBoom`.
const { SonicBoom } = sonicBoom;

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

/** Standard output for log lines (JSON or readable) with a budget: what `boundedLogDestination` returns. */
export interface LogDestination {
  /** What pino writes the lines to. */
  stream: { write(line: string): void };
  /** Lines dropped since the process started: the budget was full, or standard output failed. */
  droppedLines(): number;
  /**
   * `report` is called, once standard output has caught up, with the lines dropped since it was last
   * called: the service logs them as one warning (it is itself a line, written once there is room).
   */
  onCaughtUp(report: (dropped: number) => void): void;
  /**
   * Before the process exits: waits until every line waiting is written, or until standard output
   * has taken nothing for the exit's budget. Then what still waits is given up, said on standard
   * error, and nothing more is written.
   */
  settle(): Promise<void>;
}

/**
 * How long the log may go without writing a byte, at exit, before what still waits is given up
 * (decision 0075): long enough for a collector's pause, short against an orchestrator's grace period.
 */
export const LOG_EXIT_STALL_MS = 5000;

/** How often a waiting exit looks at standard output's progress. */
const SETTLE_CHECK_MS = 100;

/**
 * How long a line may wait to be written with the lines after it (decision 0120): standard output
 * gets one write in this time at the most under steady traffic, where it got one every few lines,
 * each a trip to libuv's thread pool and a wake-up of the pipe's reader.
 */
export const LOG_HOLD_MS = 20;
/** Lines held past this many characters are handed on at once, whatever their age. */
const LOG_HOLD_CHARS = 16 * 1024;

/**
 * The exit flush of each destination that has lines waiting. One exit listener serves them all, and
 * a destination is held here only while it has lines waiting: a process that builds servers one
 * after another (a test runner, an embedder) adds no listener per server and keeps no closed one.
 */
const flushesAtExit = new Set<() => void>();
let exitListening = false;

function flushWaitingAtExit(): void {
  for (const flush of flushesAtExit) flush();
}

/** The descriptors the log writes to, found once per process (`nonBlockingFd`). */
const reopened = new Map<number, number>();

/**
 * Where the log writes standard output (1) or standard error (2): that descriptor, or, when it is a
 * terminal, the same terminal opened again without blocking (decision 0077). A terminal's
 * descriptor blocks, and it is shared with the shell, so it cannot be made non-blocking in place
 * (libuv opens a terminal again for the same reason): a write to a terminal stopped with Ctrl-S
 * would wait, on one of libuv's threads that Node's exit then waits for, or on the event loop.
 * Opened again, the write is refused (`EAGAIN`) as on a pipe, and the budgets apply. Where the
 * terminal cannot be opened again (no `/proc`), the descriptor as it is.
 */
function nonBlockingFd(fd: 1 | 2): number {
  let found = reopened.get(fd);
  if (found !== undefined) return found;
  found = fd;
  if (isatty(fd)) {
    try {
      found = openSync(`/proc/self/fd/${fd}`, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
    } catch {
      // The descriptor as it is: a stopped terminal holds the write, as it holds Node's own.
    }
  }
  reopened.set(fd, found);
  return found;
}

/** Says something on standard error without waiting: on a full pipe or a stopped terminal it is lost, not waited for. */
function tellStderr(message: string): void {
  try {
    writeSync(nonBlockingFd(2), `switchboard: ${message}\n`);
  } catch {
    // Standard error cannot take it either; nothing is left to tell.
  }
}

/**
 * Standard output for the log lines, JSON or readable, written without blocking the event loop
 * (sonic-boom, as pino writes JSON by default) but with budgets (decisions 0074, 0075 and 0077):
 * - at most `budgetBytes` of lines wait for a standard output that is not read fast enough (a log
 *   collector that stalled, a terminal stopped with Ctrl-S). A line that would go past the budget
 *   is dropped and counted, where it would have grown the process without bound;
 * - at exit, standard output gets `LOG_EXIT_STALL_MS` without progress, not forever: a collector
 *   that stopped reading does not hold the process after its work is done;
 * - an error writing (`EPIPE`: the reader is gone) ends the writing, said once on standard error;
 *   the lines after it are dropped and counted, not retried.
 */
export function boundedLogDestination(
  budgetBytes: number,
  options: {
    /** The budget at exit; default `LOG_EXIT_STALL_MS`. */
    stallMs?: number;
  } = {},
): LogDestination {
  const { stallMs: exitStallMs = LOG_EXIT_STALL_MS } = options;
  let state: 'open' | 'given-up' | 'failed' = 'open';
  let dropped = 0;
  let reported = 0;
  let report: (dropped: number) => void = () => {};
  /** A line was taken since standard output last caught up. */
  let waiting = false;
  /** Bytes waiting, as sonic-boom says at each write standard output refused (EAGAIN). */
  let waitingBytes = 0;
  /** While flushing synchronously at exit: when a byte was last written, and how many waited then. */
  let exitFlush: { progressAt: number; bytes: number } | undefined;
  /** Lines not yet handed to sonic-boom (at most LOG_HOLD_MS old), how many, and the timer that hands them on. */
  let held = '';
  let heldLines = 0;
  let holdTimer: NodeJS.Timeout | undefined;
  /** The lines of the chunk being handed on: what a drop of that chunk counts. */
  let handing = 1;

  const sonic = new SonicBoom({
    fd: nonBlockingFd(1),
    sync: false,
    maxLength: budgetBytes,
    // Called each time standard output refuses a write (full pipe): whether to try again.
    retryEAGAIN: (_error, writingBytes, otherBytes) => {
      waitingBytes = writingBytes + otherBytes;
      if (state !== 'open') return false;
      if (!exitFlush) return true;
      if (waitingBytes < exitFlush.bytes) exitFlush = { progressAt: Date.now(), bytes: waitingBytes };
      return Date.now() - exitFlush.progressAt < exitStallMs;
    },
  });
  sonic.on('drop', () => {
    dropped += handing;
  });

  /** Hands the held lines to sonic-boom, which writes them now or once its write under way is done. */
  const handOn = () => {
    if (holdTimer) clearTimeout(holdTimer);
    holdTimer = undefined;
    if (heldLines === 0) return;
    const chunk = held;
    handing = heldLines;
    held = '';
    heldLines = 0;
    if (state === 'open') sonic.write(chunk);
    else dropped += handing;
    handing = 1;
  };

  // 'drain': everything handed on has been written (sonic-boom emits it each time it catches up).
  sonic.on('drain', () => {
    if (heldLines > 0) return;
    waiting = false;
    flushesAtExit.delete(flushAtExit);
    if (dropped === reported) return;
    const since = dropped - reported;
    reported = dropped;
    report(since);
  });
  sonic.on('error', (error: NodeJS.ErrnoException) => {
    // After giving up, the write under way fails by design; after a failure, nothing is written.
    if (state !== 'open') return;
    state = 'failed';
    flushesAtExit.delete(flushAtExit);
    tellStderr(
      `standard output failed (${error.code ?? error.message}): log lines are dropped from now on, counted in switchboard_log_lines_dropped_total`,
    );
  });

  const giveUp = () => {
    state = 'given-up';
    flushesAtExit.delete(flushAtExit);
    if (waitingBytes > 0)
      tellStderr(
        `${formatCount(waitingBytes)} bytes of log were not written: standard output took nothing for ${exitStallMs / 1000} s at exit`,
      );
  };

  // The last chance of what still waits when the process exits without `settle` (a crash, or a
  // failed shutdown): written synchronously, as pino does, within the same stall budget.
  const flushAtExit = () => {
    if (state !== 'open' || !waiting) return;
    handOn();
    exitFlush = { progressAt: Date.now(), bytes: Number.POSITIVE_INFINITY };
    try {
      sonic.flushSync();
    } catch {
      giveUp();
    }
  };
  if (!exitListening) {
    process.on('exit', flushWaitingAtExit);
    exitListening = true;
  }

  return {
    stream: {
      write(line) {
        if (state !== 'open') {
          dropped += 1;
          return;
        }
        if (!waiting) {
          waiting = true;
          flushesAtExit.add(flushAtExit);
        }
        held += line;
        heldLines += 1;
        if (held.length >= LOG_HOLD_CHARS) handOn();
        else if (!holdTimer) holdTimer = setTimeout(handOn, LOG_HOLD_MS).unref();
      },
    },
    droppedLines: () => dropped,
    onCaughtUp(callback) {
      report = callback;
    },
    settle() {
      if (state !== 'open' || !waiting) return Promise.resolve();
      handOn();
      return new Promise((resolve) => {
        let progressAt = Date.now();
        const onWrite = () => {
          progressAt = Date.now();
        };
        const finish = () => {
          clearInterval(check);
          sonic.off('write', onWrite);
          sonic.off('drain', finish);
          resolve();
        };
        const check = setInterval(() => {
          if (Date.now() - progressAt < exitStallMs) return;
          giveUp();
          finish();
        }, SETTLE_CHECK_MS);
        sonic.on('write', onWrite);
        sonic.on('drain', finish);
      });
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
  /** Where readable lines go; default `destination`, or else standard output. */
  write?: (line: string) => void;
  /**
   * Where the lines go, JSON or readable, within its budget; default standard output as pino (JSON)
   * or Node (readable) writes it, which has no budget.
   */
  destination?: LogDestination;
}): Promise<FastifyServerOptions['logger']> {
  const { level, format, destination } = options;
  if (format === 'json') return { level, ...LOG_REDACTION, ...(destination ? { stream: destination.stream } : {}) };
  const write =
    options.write ??
    (destination ? (line: string) => destination.stream.write(line) : (line: string) => process.stdout.write(line));
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
