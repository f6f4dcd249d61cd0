import { isIP } from 'node:net';
import path from 'node:path';
import type { LogFormat } from './logging.js';

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
  /**
   * `SWITCHBOARD_MAX_CONNECTIONS`, default 10,000: HTTP sockets open at once; beyond, new ones are
   * closed as they are accepted, so idle sockets cannot use up the process's file descriptors
   * (decision 0029). Keep it well below `ulimit -n`.
   */
  readonly maxConnections: number;
  /** `SWITCHBOARD_DATA_DIR`, default `./.switchboard`, resolved against the working directory. */
  readonly dataDir: string;
  /** `SWITCHBOARD_MASTER_KEY`: 32 bytes, base64. Generated into the data dir when absent in embedded mode. */
  readonly masterKey: string | undefined;
  /** `SWITCHBOARD_PUBLIC_URL`: the base URL customers and providers reach us at. Default `http://HOST:PORT`. */
  readonly publicUrl: string;
  /** `SWITCHBOARD_ALLOW_PRIVATE_NETWORKS`, default false: outbound requests may reach private addresses only when true. */
  readonly allowPrivateNetworks: boolean;
  /**
   * `SWITCHBOARD_TRUSTED_PROXIES`, default none: the proxies (a comma list of addresses and CIDRs)
   * whose `X-Forwarded-For` / `-Proto` / `-Host` are believed. Anyone else's are ignored: they
   * would choose the address the log-in and sign-up limits count and the cookie's `Secure`
   * (decision 0030). Its old name `SWITCHBOARD_TRUST_PROXY` (`true`, `false` or a list, which may
   * also name `loopback`, `linklocal`, `uniquelocal`) is still read when the new one is absent,
   * with a warning at start; its old default (those three words) is gone.
   */
  readonly trustedProxies: boolean | string;
  /**
   * `SWITCHBOARD_SIGNUP_LIMIT_PER_HOUR`, default 5: sign-ups one client address may make in an
   * hour; more answer 429 (decision 0030). The test suites raise it, signing up many organizations
   * from 127.0.0.1.
   */
  readonly signupLimitPerHour: number;
  /** Settings that are read but deprecated, each with what replaces it: logged as warnings at start. */
  readonly deprecations: readonly string[];
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
   * `SWITCHBOARD_PUBLISH_INTERVAL_MS`, default 5000: the longest a worker waits before looking for
   * agents and phone numbers to publish to their provider. A change is announced and published at
   * once, and a retry when it falls due; this is the safety net for what no announcement reached
   * (decision 0086).
   */
  readonly publishIntervalMs: number;
  /**
   * `SWITCHBOARD_ANALYSIS_GRACE_SECONDS`, default 120: how long an answered Retell call waits for
   * `call_analyzed` (which carries its outcome) after `call_ended` before it ends without it.
   */
  readonly analysisGraceSeconds: number;
  /**
   * `SWITCHBOARD_PROVIDER_REPORT_GRACE_SECONDS`, default 300: how long past its agent's
   * `maxCallDurationSeconds` a call on Vapi or Retell waits for its end-of-call report before the
   * duration sweep closes it as `timeout` (decision 0097).
   */
  readonly providerReportGraceSeconds: number;
  /** `SWITCHBOARD_ROLE`, default `all`: `api` serves HTTP only, `worker` runs background work only. */
  readonly role: Role;
  /** `SWITCHBOARD_SIGNUP`: `open` by default in embedded mode, `closed` with `DATABASE_URL`. */
  readonly signup: 'open' | 'closed';
  /** `LOG_LEVEL`, default `info`. */
  readonly logLevel: string;
  /**
   * `SWITCHBOARD_LOG_FORMAT`, default `auto`: `serve` writes one readable line per event when its
   * standard output is a terminal, JSON lines otherwise; `json` or `pretty` choose either always.
   */
  readonly logFormat: LogFormat;
  /**
   * `SWITCHBOARD_LOG_BUFFER_BYTES`, default 16777216 (16 MiB): how much of the JSON log may wait
   * for a standard output that is not read fast enough; lines past it are dropped and counted
   * (`switchboard_log_lines_dropped_total`, and a warning once the output catches up; decision 0074).
   */
  readonly logBufferBytes: number;
  /**
   * `SWITCHBOARD_SWEEP_INTERVAL_MS`, default 5000: how often a worker closes calls past their
   * `maxCallDurationSeconds`.
   */
  readonly sweepIntervalMs: number;
  /**
   * `SWITCHBOARD_PRUNE_INTERVAL_MS`, default 60000: how often a worker removes expired idempotency
   * keys, spent rate-limit windows and forgotten login failures (decision 0088). Nothing reads
   * them once expired, so this bounds only how long they take room.
   */
  readonly pruneIntervalMs: number;
  /**
   * `SWITCHBOARD_CAMPAIGN_INTERVAL_MS`, default 1000: how often a worker's campaign scheduler
   * settles ended calls and places due ones (it is also woken when a campaign starts or resumes).
   */
  readonly campaignIntervalMs: number;
  /**
   * `SWITCHBOARD_CAMPAIGN_LEASE_SECONDS`, default 60: a campaign call still being placed after this
   * long died with its process; if it never started it is ended and its contact is due again.
   */
  readonly campaignLeaseSeconds: number;
  /**
   * `SWITCHBOARD_SIMULATOR_LEASE_SECONDS`, default 30: on PostgreSQL, a process playing simulated
   * calls renews a lease every third of this; a worker closes the calls of a lease this far past its
   * last renewal (the process was killed) rather than at their deadline (decision 0094).
   */
  readonly simulatorLeaseSeconds: number;
  /**
   * `SWITCHBOARD_RETENTION_DAYS`, default unset: every call is kept. A whole number of days (1 to
   * 36500): a worker removes ended calls created longer ago than that, with their tool invocations,
   * deliveries and delivery attempts, never one with a delivery still pending (decision 0052).
   */
  readonly retentionDays: number | undefined;
  /**
   * `SWITCHBOARD_RETENTION_INTERVAL_MS`, default 60000: how often a worker looks for calls past
   * `SWITCHBOARD_RETENTION_DAYS`; each pass removes all it finds, in small batches.
   */
  readonly retentionIntervalMs: number;
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

/** Unset keeps every call: retention is a choice an operator makes, never a default that deletes. */
function readRetentionDays(env: Env): number | undefined {
  const raw = env.SWITCHBOARD_RETENTION_DAYS;
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isInteger(value) || value < 1 || value > 36_500) {
    throw new ConfigError(
      `SWITCHBOARD_RETENTION_DAYS must be a whole number of days from 1 to 36500 (unset keeps every call), got "${raw}"`,
    );
  }
  return value;
}

/** An address or a CIDR (`10.0.0.0/8`, `fd00::/8`). */
function isAddressOrCidr(value: string): boolean {
  const [address = '', prefix, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

function readTrustedProxies(env: Env, deprecations: string[]): boolean | string {
  const raw = env.SWITCHBOARD_TRUSTED_PROXIES?.trim();
  const old = env.SWITCHBOARD_TRUST_PROXY?.trim();
  if (raw) {
    if (old) deprecations.push('SWITCHBOARD_TRUST_PROXY is ignored: SWITCHBOARD_TRUSTED_PROXIES is set');
    const entries = raw.split(',').map((entry) => entry.trim());
    const bad = entries.find((entry) => !isAddressOrCidr(entry));
    if (bad !== undefined) {
      throw new ConfigError(
        `SWITCHBOARD_TRUSTED_PROXIES must be a comma list of addresses and CIDRs, got "${bad}" in "${raw}"`,
      );
    }
    return entries.join(',');
  }
  if (old) {
    deprecations.push(
      'SWITCHBOARD_TRUST_PROXY is deprecated and will be removed: set SWITCHBOARD_TRUSTED_PROXIES (addresses and CIDRs) instead',
    );
    return old === 'true' || old === 'false' ? old === 'true' : old;
  }
  return false;
}

/**
 * `SWITCHBOARD_URL`, default http://127.0.0.1:3000: where the CLI's `call` sends a click-to-call
 * when `--url` is not given. Read apart from `loadConfig`, which checks the server's settings: a
 * client command has no use for them, and should not fail on one that is wrong.
 */
export function switchboardUrl(env: Env = process.env): string {
  return (env.SWITCHBOARD_URL || 'http://127.0.0.1:3000').replace(/\/+$/, '');
}

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const port = readInteger(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const databaseUrl = env.DATABASE_URL || undefined;
  const publicUrl = (env.SWITCHBOARD_PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(
    /\/+$/,
    '',
  );
  const deprecations: string[] = [];
  return Object.freeze({
    port,
    host,
    databaseUrl,
    databaseTimeoutMs: readInteger(env, 'SWITCHBOARD_DATABASE_TIMEOUT_MS', 1500, 100, 600_000),
    maxConnections: readInteger(env, 'SWITCHBOARD_MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    dataDir: path.resolve(cwd, env.SWITCHBOARD_DATA_DIR || '.switchboard'),
    masterKey: env.SWITCHBOARD_MASTER_KEY || undefined,
    publicUrl,
    allowPrivateNetworks: readBoolean(env, 'SWITCHBOARD_ALLOW_PRIVATE_NETWORKS', false),
    trustedProxies: readTrustedProxies(env, deprecations),
    signupLimitPerHour: readInteger(env, 'SWITCHBOARD_SIGNUP_LIMIT_PER_HOUR', 5, 1, 1_000_000),
    deprecations: Object.freeze(deprecations),
    retryScheduleSeconds: readRetrySchedule(env),
    autoDisableSeconds: readInteger(env, 'SWITCHBOARD_AUTO_DISABLE_SECONDS', 5 * 24 * 3600, 1, 365 * 24 * 3600),
    shutdownGraceMs: readInteger(env, 'SWITCHBOARD_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    deliveryLeaseSeconds: readInteger(env, 'SWITCHBOARD_DELIVERY_LEASE_SECONDS', 50, 1, 3600),
    publishIntervalMs: readInteger(env, 'SWITCHBOARD_PUBLISH_INTERVAL_MS', 5000, 50, 3_600_000),
    analysisGraceSeconds: readInteger(env, 'SWITCHBOARD_ANALYSIS_GRACE_SECONDS', 120, 0, 86_400),
    providerReportGraceSeconds: readInteger(env, 'SWITCHBOARD_PROVIDER_REPORT_GRACE_SECONDS', 300, 0, 86_400),
    role: readEnum(env, 'SWITCHBOARD_ROLE', ['api', 'worker', 'all'] as const, 'all'),
    workerPort: env.SWITCHBOARD_WORKER_PORT ? readInteger(env, 'SWITCHBOARD_WORKER_PORT', 0, 0, 65535) : undefined,
    signup: readEnum(env, 'SWITCHBOARD_SIGNUP', ['open', 'closed'] as const, databaseUrl ? 'closed' : 'open'),
    logLevel: env.LOG_LEVEL || 'info',
    logFormat: readEnum(env, 'SWITCHBOARD_LOG_FORMAT', ['auto', 'json', 'pretty'] as const, 'auto'),
    logBufferBytes: readInteger(env, 'SWITCHBOARD_LOG_BUFFER_BYTES', 16 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
    sweepIntervalMs: readInteger(env, 'SWITCHBOARD_SWEEP_INTERVAL_MS', 5000, 50, 3_600_000),
    pruneIntervalMs: readInteger(env, 'SWITCHBOARD_PRUNE_INTERVAL_MS', 60_000, 50, 3_600_000),
    campaignIntervalMs: readInteger(env, 'SWITCHBOARD_CAMPAIGN_INTERVAL_MS', 1000, 10, 3_600_000),
    campaignLeaseSeconds: readInteger(env, 'SWITCHBOARD_CAMPAIGN_LEASE_SECONDS', 60, 1, 3600),
    simulatorLeaseSeconds: readInteger(env, 'SWITCHBOARD_SIMULATOR_LEASE_SECONDS', 30, 1, 3600),
    retentionDays: readRetentionDays(env),
    retentionIntervalMs: readInteger(env, 'SWITCHBOARD_RETENTION_INTERVAL_MS', 60_000, 50, 86_400_000),
  });
}
