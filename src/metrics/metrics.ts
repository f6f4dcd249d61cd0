import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { DEFAULT_OUTCOMES, PROVIDERS } from '../agents/agents.schemas.js';

/** What the delivery queue looks like right now: read at scrape time (deliveries.repository.ts). */
export interface DeliveryQueueStats {
  /** Pending deliveries whose next attempt is due now. */
  due: number;
  /** Every pending delivery, due or waiting for a retry (or held by a worker). */
  pending: number;
  /** Seconds since the oldest due delivery became due; 0 when none is due. */
  oldestDueAgeSeconds: number;
}

export interface MetricsDeps {
  /** The queue, read once per scrape; a slow database makes the gauges NaN rather than hang the scrape. */
  deliveryQueue?: () => Promise<DeliveryQueueStats>;
  /** Calls not yet ended, by status (calls.repository.ts), read once per scrape like the queue. */
  openCalls?: () => Promise<Record<string, number>>;
  /** Log lines dropped since start because standard output fell behind (decision 0074); none when absent. */
  droppedLogLines?: () => number;
  /** How long each of those reads may take, default 1000 ms. */
  queueTimeoutMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * Outcomes are per agent and chosen by customers: only the contract's defaults are labels of their
 * own, anything else is `other`, so a tenant cannot grow the series without bound.
 */
export const KNOWN_OUTCOMES = new Set(DEFAULT_OUTCOMES);
const KNOWN_PROVIDERS = new Set<string>(PROVIDERS);

/** The statuses of a call not yet ended (CALL_STATUSES without `ended`), each a series of switchboard_calls_open. */
const OPEN_CALL_STATUSES = ['queued', 'ringing', 'in_progress'] as const;

/** How often the event loop's lag is sampled (`nodejs_eventloop_lag_*`), in ms. */
const EVENT_LOOP_SAMPLE_MS = 100;

/** The label of requests that matched no route: their raw URLs would be unbounded. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * One registry per app (tests build several apps in one process), with every instrument the
 * services record into. Services receive the small recorder interfaces below, never prom-client.
 */
export function createMetrics(deps: MetricsDeps = {}) {
  const registry = new Registry();
  // The process metrics (CPU, RSS, heap, event-loop lag, GC) under their standard names
  // (`process_*`, `nodejs_*`), which ready-made dashboards expect; ours are `switchboard_*`. The
  // event-loop lag is sampled every 100 ms, not every 10 ms (prom-client's default): a timer a
  // hundred times a second was about half of what an idle server spends (decision 0080).
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });

  const httpDuration = new Histogram({
    name: 'switchboard_http_request_duration_seconds',
    help: 'HTTP requests served, by route pattern (never the raw URL; "unmatched" when none matched), method and status code.',
    labelNames: ['route', 'method', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const clickToCall = new Counter({
    name: 'switchboard_click_to_call_results_total',
    help: 'Click-to-call answers, by code: "success" or the ctc error code (ctc:001 … ctc:012).',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const callsEnded = new Counter({
    name: 'switchboard_calls_ended_total',
    help: 'Calls that reached their terminal state, by outcome (the contract default outcomes, else "other") and provider.',
    labelNames: ['outcome', 'provider'] as const,
    registers: [registry],
  });
  const toolDuration = new Histogram({
    name: 'switchboard_tool_invocation_duration_seconds',
    help: 'Tool runs during calls, by result kind ("ok", "http_status", "timeout", "connect", "refused", …); never by tool name.',
    labelNames: ['result'] as const,
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const toolErrors = new Counter({
    name: 'switchboard_tool_invocation_errors_total',
    help: 'Tool runs during calls that gave the agent an error, by result kind.',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const deliveryAttempts = new Counter({
    name: 'switchboard_delivery_attempts_total',
    help: 'Webhook delivery attempts, by result: "delivered" or the error code (webhook:http_status, webhook:connect, …); "dropped" and "unsent" for deliveries settled without one.',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const providerSyncFailures = new Counter({
    name: 'switchboard_provider_sync_failures_total',
    help: 'Failed attempts to publish an agent to its provider (Vapi, Retell).',
    labelNames: ['provider'] as const,
    registers: [registry],
  });

  const droppedLogLines = deps.droppedLogLines;
  let droppedCounted = 0;
  new Counter({
    name: 'switchboard_log_lines_dropped_total',
    help: 'Log lines dropped because standard output fell more than SWITCHBOARD_LOG_BUFFER_BYTES behind (a log collector that stopped reading), or failed (closed by its reader).',
    registers: [registry],
    collect() {
      if (!droppedLogLines) return;
      const dropped = droppedLogLines();
      this.inc(dropped - droppedCounted);
      droppedCounted = dropped;
    },
  });

  const onError = deps.onError ?? (() => {});
  const queueTimeoutMs = deps.queueTimeoutMs ?? 1000;
  /**
   * A database read for the gauges of one scrape: the first gauge's collect runs it, the others of
   * the same scrape reuse it, and the next scrape reads again. Undefined when it failed or was late.
   */
  const perScrape = <T>(read: () => Promise<T>, what: string) => {
    let pending: Promise<T | undefined> | undefined;
    return (): Promise<T | undefined> => {
      pending ??= withTimeout(read(), queueTimeoutMs, what)
        .catch((error: unknown) => {
          onError(error);
          return undefined;
        })
        .finally(() => {
          setImmediate(() => {
            pending = undefined;
          });
        });
      return pending;
    };
  };
  const readQueue = deps.deliveryQueue ? perScrape(deps.deliveryQueue, 'the delivery queue') : undefined;
  const queueGauge = (
    name: string,
    help: string,
    pick: (stats: DeliveryQueueStats) => number,
    labelNames: string[] = [],
  ) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const stats = await readQueue?.();
        this.set(stats ? pick(stats) : Number.NaN);
      },
    });
  if (deps.openCalls) {
    const readOpenCalls = perScrape(deps.openCalls, 'the open calls');
    new Gauge({
      name: 'switchboard_calls_open',
      help: 'Calls not yet ended, by status (queued, ringing, in_progress), across organizations; NaN when the database did not answer in time. Ended calls are switchboard_calls_ended_total.',
      labelNames: ['status'] as const,
      registers: [registry],
      async collect() {
        const counts = await readOpenCalls();
        for (const status of OPEN_CALL_STATUSES) this.set({ status }, counts ? (counts[status] ?? 0) : Number.NaN);
      },
    });
  }
  if (deps.deliveryQueue) {
    queueGauge(
      'switchboard_delivery_queue_lag_seconds',
      'Age in seconds of the oldest due pending webhook delivery (0 when none is due; NaN when the database did not answer in time).',
      (s) => s.oldestDueAgeSeconds,
    );
    queueGauge('switchboard_delivery_queue_due', 'Pending webhook deliveries due now.', (s) => s.due);
    queueGauge(
      'switchboard_delivery_queue_pending',
      'Pending webhook deliveries, due now or waiting for a retry.',
      (s) => s.pending,
    );
  }

  return {
    registry,
    contentType: registry.contentType,
    text: () => registry.metrics(),
    http: {
      observe(route: string | undefined, method: string, statusCode: number, seconds: number): void {
        httpDuration.observe({ route: route ?? UNMATCHED_ROUTE, method, status_code: String(statusCode) }, seconds);
      },
    },
    clickToCall: {
      answered(code: string): void {
        clickToCall.inc({ code });
      },
    },
    calls: {
      ended(outcome: string | null, provider: string): void {
        callsEnded.inc({
          outcome: outcome && KNOWN_OUTCOMES.has(outcome) ? outcome : 'other',
          provider: KNOWN_PROVIDERS.has(provider) ? provider : 'other',
        });
      },
    },
    tools: {
      ran(result: string, latencyMs: number): void {
        toolDuration.observe({ result }, latencyMs / 1000);
        if (result !== 'ok') toolErrors.inc({ result });
      },
    },
    deliveries: {
      attempted(result: string): void {
        deliveryAttempts.inc({ result });
      },
    },
    providerSync: {
      failed(provider: string): void {
        providerSyncFailures.inc({ provider: KNOWN_PROVIDERS.has(provider) ? provider : 'other' });
      },
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
export type ClickToCallMetrics = Metrics['clickToCall'];
export type CallMetrics = Metrics['calls'];
export type ToolMetrics = Metrics['tools'];
export type DeliveryMetrics = Metrics['deliveries'];
export type ProviderSyncMetrics = Metrics['providerSync'];

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} was not read within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
