import { startTsChild } from './children.js';

/** What the requests carry. */
export type LoadRequests =
  /** The same headers and body on every request. */
  | { type: 'fixed'; headers: Record<string, string>; body: string }
  /**
   * `{"phone": …, "variables": {"name": "Ada"}}` signed with `secret` (header `signature`), a
   * different valid phone number on each request (`unique`), or cycling through `pool` of them.
   */
  | { type: 'signed'; apiToken: string; secret: string; phonesFrom: number; unique: boolean; pool: number }
  /**
   * A different body per request: `template` with every `placeholder` replaced by the next of
   * `values` (each used once, or over and over with `cycle`), built as it is sent so that thousands
   * of large bodies (provider reports) need not be held at once. `retellSignatureKey` adds Retell's
   * `x-retell-signature` (`v=<ms>,d=<hex HMAC-SHA256 of body + ms>`) computed for each body.
   */
  | {
      type: 'templated';
      headers: Record<string, string>;
      template: string;
      placeholder: string;
      values: string[];
      cycle: boolean;
      retellSignatureKey?: string;
    };

export interface LoadSpec {
  /** Only http://127.0.0.1:<port> is accepted. */
  origin: string;
  path: string;
  requests: LoadRequests;
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** The run also stops after this many requests (warm-up included). */
  maxRequests: number;
  /** Per request: headers and body each within this. */
  requestTimeoutMs: number;
  /** The status the path should answer; other statuses are reported with a sample body. */
  expectedStatus: number;
}

export interface LoadResult {
  /** Responses that completed inside the measured window, by status ("error:<code>" for failures). */
  statuses: Record<string, number>;
  /** Responses with the expected status per second of the measured window. */
  rps: number;
  /** All responses per second of the measured window. */
  allRps: number;
  measured: number;
  windowS: number;
  warmupResponses: number;
  /** Every response, warm-up and measured window included (to share out CPU time). */
  totalResponses: number;
  /** CPU time the load generator used while it sent requests, in ms. */
  generatorCpuMs: number;
  /** CPU time the load generator's process used in all (start-up and preparing requests included), in ms. */
  generatorProcessCpuMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The run stopped early at `maxRequests` or because the unique phone numbers ran out. */
  stoppedByCount: boolean;
  /** One body per unexpected status, cut to 300 characters. */
  samples: Record<string, string>;
}

/**
 * Runs one load in its own child process (bench/lib/load-worker.ts, undici) and returns what it
 * measured. The child stops by itself; it is killed if it overruns its time.
 */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const url = new URL(spec.origin);
  if (url.hostname !== '127.0.0.1') throw new Error(`the load generator only targets 127.0.0.1, not ${spec.origin}`);
  const child = startTsChild('lib/load-worker.ts', 'load generator');
  const limitMs = spec.warmupMs + spec.durationMs + spec.requestTimeoutMs + 30_000;
  const timer = setTimeout(() => child.process.kill('SIGKILL'), limitMs);
  try {
    const result = await new Promise<LoadResult>((resolve, reject) => {
      child.process.once('message', (message) => resolve(message as LoadResult));
      void child.exited.then(({ code, signal }) =>
        reject(new Error(`the load generator exited (${code ?? signal}) without a result:\n${child.output()}`)),
      );
      child.process.send(spec);
    });
    await child.exited;
    return result;
  } finally {
    clearTimeout(timer);
    await child.stop(2000);
  }
}
