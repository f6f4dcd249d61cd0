import path from 'node:path';

/** Which parts of the service a process runs. */
export type Role = 'api' | 'worker' | 'all';

/**
 * Everything the service reads from its environment, read once at start.
 * This module is the only reader of `process.env` in the service.
 */
export interface Config {
  /** `PORT`, default 3000. */
  readonly port: number;
  /**
   * `SWITCHBOARD_WORKER_PORT`, default none: where a `worker` process serves `/healthz`, `/readyz`
   * and `/metrics` (nothing else). Without it a worker opens no port.
   */
  readonly workerPort: number | undefined;
  /** `HOST`, default 127.0.0.1: nothing is exposed beyond this machine unless asked for. */
  readonly host: string;
  /** `DATABASE_URL`; absent means the embedded PGlite database in `dataDir`. */
  readonly databaseUrl: string | undefined;
  /**
   * `SWITCHBOARD_DATABASE_TIMEOUT_MS`, default 1500: with `DATABASE_URL`, how long connecting to
   * PostgreSQL or one statement may take before it fails. A database that stopped answering then
   * costs a request an error within it (click to call answers within 2 s), never a hang. Raise it
   * for statements that are slow by nature; migrations are not bound by it.
   */
  readonly databaseTimeoutMs: number;
  /** `SWITCHBOARD_DATA_DIR`, default `./.switchboard`, resolved against the working directory. */
  readonly dataDir: string;
  /** `SWITCHBOARD_MASTER_KEY`: 32 bytes, base64. Generated into the data dir when absent in embedded mode. */
  readonly masterKey: string | undefined;
  /** `SWITCHBOARD_PUBLIC_URL`: the base URL customers and providers reach us at. Default `http://HOST:PORT`. */
  readonly publicUrl: string;
  /** `SWITCHBOARD_ALLOW_PRIVATE_NETWORKS`, default false: outbound requests may reach private addresses only when true. */
  readonly allowPrivateNetworks: boolean;
  /**
   * `SWITCHBOARD_TRUST_PROXY`: the proxies whose `X-Forwarded-For` / `-Proto` / `-Host` are believed
   * (Fastify's `trustProxy`: `true`, `false`, or a comma list of addresses, CIDRs and
   * `loopback` / `linklocal` / `uniquelocal`). Default `loopback,linklocal,uniquelocal`: a load
   * balancer on the same host or a private network, never a client on the internet, whose forged
   * headers would otherwise choose the address the log-in limit counts and the cookie's `Secure`.
   */
  readonly trustProxy: boolean | string;
  /** `SWITCHBOARD_RETRY_SCHEDULE`: seconds between webhook delivery attempts; absent means the contract's schedule. */
  readonly retryScheduleSeconds: readonly number[] | undefined;
  /**
   * `SWITCHBOARD_AUTO_DISABLE_SECONDS`, default 432000 (five days): an integration whose deliveries
   * have all failed for this long is disabled. Shortened for tests.
   */
  readonly autoDisableSeconds: number;
  /**
   * `SWITCHBOARD_SHUTDOWN_GRACE_MS`, default 10000: on SIGTERM, how long webhook attempts under way
   * may finish before they are abandoned and their deliveries given back to the queue.
   */
  readonly shutdownGraceMs: number;
  /**
   * `SWITCHBOARD_DELIVERY_LEASE_SECONDS`, default 50: how long a claimed delivery stays with its
   * worker; one whose worker died is claimed again after it. Shortened for tests.
   */
  readonly deliveryLeaseSeconds: number;
  /**
   * `SWITCHBOARD_PUBLISH_INTERVAL_MS`, default 1000: how often a worker publishes agents whose
   * settings or tools changed to their provider.
   */
  readonly publishIntervalMs: number;
  /**
   * `SWITCHBOARD_ANALYSIS_GRACE_SECONDS`, default 120: how long an answered Retell call waits for
   * `call_analyzed` (which carries its outcome) after `call_ended` before it ends without it.
   */
  readonly analysisGraceSeconds: number;
  /** `SWITCHBOARD_ROLE`, default `all`: `api` serves HTTP only, `worker` runs background work only. */
  readonly role: Role;
  /** `SWITCHBOARD_SIGNUP`: `open` by default in embedded mode, `closed` with `DATABASE_URL`. */
  readonly signup: 'open' | 'closed';
  /** `LOG_LEVEL`, default `info`. */
  readonly logLevel: string;
  /**
   * `SWITCHBOARD_SWEEP_INTERVAL_MS`, default 5000: how often a worker closes calls past their
   * `maxCallDurationSeconds` and prunes expired rate-limit and idempotency rows.
   */
  readonly sweepIntervalMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be "true" or "false", got "${raw}"`);
}

function readEnum<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function readRetrySchedule(env: Env): number[] | undefined {
  const raw = env.SWITCHBOARD_RETRY_SCHEDULE;
  if (raw === undefined || raw.trim() === '') return undefined;
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (values.some((v) => !Number.isFinite(v) || v < 0)) {
    throw new ConfigError(`SWITCHBOARD_RETRY_SCHEDULE must be a comma list of seconds, got "${raw}"`);
  }
  return values;
}

function readTrustProxy(raw: string | undefined): boolean | string {
  const value = (raw ?? '').trim();
  if (value === '') return 'loopback,linklocal,uniquelocal';
  if (value === 'true' || value === 'false') return value === 'true';
  return value;
}

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const port = readInteger(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const databaseUrl = env.DATABASE_URL || undefined;
  const publicUrl = (env.SWITCHBOARD_PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(
    /\/+$/,
    '',
  );
  return Object.freeze({
    port,
    host,
    databaseUrl,
    databaseTimeoutMs: readInteger(env, 'SWITCHBOARD_DATABASE_TIMEOUT_MS', 1500, 100, 600_000),
    dataDir: path.resolve(cwd, env.SWITCHBOARD_DATA_DIR || '.switchboard'),
    masterKey: env.SWITCHBOARD_MASTER_KEY || undefined,
    publicUrl,
    allowPrivateNetworks: readBoolean(env, 'SWITCHBOARD_ALLOW_PRIVATE_NETWORKS', false),
    trustProxy: readTrustProxy(env.SWITCHBOARD_TRUST_PROXY),
    retryScheduleSeconds: readRetrySchedule(env),
    autoDisableSeconds: readInteger(env, 'SWITCHBOARD_AUTO_DISABLE_SECONDS', 5 * 24 * 3600, 1, 365 * 24 * 3600),
    shutdownGraceMs: readInteger(env, 'SWITCHBOARD_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    deliveryLeaseSeconds: readInteger(env, 'SWITCHBOARD_DELIVERY_LEASE_SECONDS', 50, 1, 3600),
    publishIntervalMs: readInteger(env, 'SWITCHBOARD_PUBLISH_INTERVAL_MS', 1000, 50, 3_600_000),
    analysisGraceSeconds: readInteger(env, 'SWITCHBOARD_ANALYSIS_GRACE_SECONDS', 120, 0, 86_400),
    role: readEnum(env, 'SWITCHBOARD_ROLE', ['api', 'worker', 'all'] as const, 'all'),
    workerPort: env.SWITCHBOARD_WORKER_PORT ? readInteger(env, 'SWITCHBOARD_WORKER_PORT', 0, 0, 65535) : undefined,
    signup: readEnum(env, 'SWITCHBOARD_SIGNUP', ['open', 'closed'] as const, databaseUrl ? 'closed' : 'open'),
    logLevel: env.LOG_LEVEL || 'info',
    sweepIntervalMs: readInteger(env, 'SWITCHBOARD_SWEEP_INTERVAL_MS', 5000, 50, 3_600_000),
  });
}
