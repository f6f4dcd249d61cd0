import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import { serveEnvironment, serveNodeFlags } from '../../src/lib/serve-flags.js';
import { type Child, freePort, ROOT, sleep, startChild, waitUntilHealthy } from './children.js';

export interface RunningSwitchboard {
  child: Child;
  origin: string;
  /** From spawn to the first 200 of GET /healthz, in ms. */
  startupMs: number;
}

/** The environment of the server under test: ours, less anything that would change its configuration. */
function serverEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('SWITCHBOARD_') || name.startsWith('npm_') || name === 'NODE_OPTIONS') continue;
    if (['DATABASE_URL', 'PORT', 'HOST', 'LOG_LEVEL'].includes(name)) continue;
    env[name] = value;
  }
  return { ...env, ...settings };
}

/**
 * `node bin/switchboard.js serve` as a child process on a free port of 127.0.0.1, the way an
 * operator runs it (built dist/). `settings` is the rest of its environment.
 */
export async function startSwitchboard(
  label: string,
  settings: Record<string, string>,
  nodeFlags: string[] = [],
): Promise<RunningSwitchboard> {
  const port = await freePort();
  // A worker (SWITCHBOARD_ROLE=worker) serves /healthz only on SWITCHBOARD_WORKER_PORT: that port, then.
  const workerPort: Record<string, string> =
    settings.SWITCHBOARD_ROLE === 'worker' ? { SWITCHBOARD_WORKER_PORT: String(port) } : {};
  // At the default log level (info: a line per request), as `npm start` runs it; until 2026-11-25
  // the servers under test ran at warn, which left out the cost of that line (docs/benchmarks.md).
  const given = serverEnv({ PORT: String(port), HOST: '127.0.0.1', ...workerPort, ...settings });
  // The environment `serve` gives itself where it re-executes, given here for the same reason as its flags.
  const env = { ...given, ...serveEnvironment(given) };
  // BENCH_CPU_PROF=<dir>: each server writes a V8 CPU profile there when it stops (slows it down;
  // summarise with `npx tsx bench/profile-summary.ts <file>`). Figures taken so are not the reference.
  const profileDir = process.env.BENCH_CPU_PROF;
  // The flags `serve` gives itself where Node can re-execute (22.15 and later), given here so that
  // this machine's Node 20 runs the server as Node 22 and 24 do (src/lib/serve-flags.ts).
  // BENCH_NODE_FLAGS: more flags for each server (e.g. `--perf-basic-prof` for `perf record`); figures
  // taken so are not the reference either.
  const extraFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const serveFlags = [...serveNodeFlags(env), ...nodeFlags, ...extraFlags];
  const flags = profileDir ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profileDir), ...serveFlags] : serveFlags;
  const since = performance.now();
  const child = startChild(process.execPath, [...flags, path.join(ROOT, 'bin/switchboard.js'), 'serve'], {
    label,
    env,
  });
  const origin = `http://127.0.0.1:${port}`;
  try {
    const startupMs = await waitUntilHealthy(`${origin}/healthz`, child, since);
    return { child, origin, startupMs };
  } catch (error) {
    await child.stop(2000);
    throw error;
  }
}

export async function api(
  origin: string,
  method: string,
  route: string,
  options: { body?: unknown; apiKey?: string } = {},
): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const response = await fetch(`${origin}${route}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {}
  return { status: response.status, body };
}

function expect<T>(response: { status: number; body: unknown }, status: number, what: string): T {
  if (response.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`);
  }
  return response.body as T;
}

/** POST /v1/signup: a new organization; returns its API key. */
export async function signup(origin: string): Promise<string> {
  const id = randomBytes(4).toString('hex');
  const body = expect<{ apiKey: string }>(
    await api(origin, 'POST', '/v1/signup', {
      body: { organization: `Bench ${id}`, email: `bench-${id}@example.com`, password: 'correct horse battery' },
    }),
    201,
    'signup',
  );
  return body.apiKey;
}

export interface BenchAgent {
  agentId: string;
  apiToken: string;
  apiSecret: string;
}

/**
 * A click-to-call agent on the simulator with no scenario (its calls end at once), so every
 * correctly signed request with a new number starts a call. With no rate limit unless
 * `rateLimitPerMinute` is given: a limit high enough never to refuse (1,000,000, the maximum) is how
 * the default agent configuration, which always has a limit, is measured.
 */
export async function createClickToCallAgent(
  origin: string,
  apiKey: string,
  { rateLimitPerMinute = null }: { rateLimitPerMinute?: number | null } = {},
): Promise<BenchAgent> {
  const agent = expect<{ id: string; rateLimitPerMinute: unknown; provider: string; simulator: unknown }>(
    await api(origin, 'POST', '/v1/agents', {
      apiKey,
      body: { name: 'Bench agent', type: 'click_to_call', rateLimitPerMinute },
    }),
    201,
    'create agent',
  );
  if (agent.rateLimitPerMinute !== rateLimitPerMinute || agent.provider !== 'simulator' || agent.simulator !== null) {
    throw new Error(`the agent is not as the benchmark needs it: ${JSON.stringify(agent)}`);
  }
  const credentials = expect<{ apiToken: string; apiSecret: string }>(
    await api(origin, 'GET', `/v1/agents/${agent.id}/credentials`, { apiKey }),
    200,
    'credentials',
  );
  return { agentId: agent.id, apiToken: credentials.apiToken, apiSecret: credentials.apiSecret };
}

const OPEN_STATUSES = ['queued', 'ringing', 'in_progress'] as const;

/**
 * After a load of accepted calls: how long until no call is open any more (the simulator finishes
 * each call in the background after the 200). Polls GET /v1/calls?status=…; gives up after `timeoutMs`.
 */
export async function waitForCallsToEnd(origin: string, apiKey: string, timeoutMs = 60_000): Promise<number | null> {
  const since = performance.now();
  while (performance.now() - since < timeoutMs) {
    let open = false;
    for (const status of OPEN_STATUSES) {
      const page = expect<{ data: unknown[] }>(
        await api(origin, 'GET', `/v1/calls?status=${status}&limit=1`, { apiKey }),
        200,
        'list calls',
      );
      if (page.data.length > 0) {
        open = true;
        break;
      }
    }
    if (!open) return performance.now() - since;
    await sleep(50);
  }
  return null;
}

/**
 * A server built in this process as `switchboard serve` builds it (src/app.ts), on `database`,
 * listening on a free loopback port; `env` adds to the benchmark's settings.
 */
export async function startInProcessServer(
  database: Database,
  masterKey: Buffer,
  env: Record<string, string> = {},
): Promise<{ app: FastifyInstance; origin: string }> {
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port),
    LOG_LEVEL: 'silent',
    SWITCHBOARD_SIGNUP: 'open',
    SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'true',
    ...env,
  });
  const app = await buildApp({ config, database, masterKey, logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  return { app, origin: `http://127.0.0.1:${port}` };
}
