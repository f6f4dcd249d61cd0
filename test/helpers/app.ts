import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { type AppDeps, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { openPostgres } from '../../src/db/postgres.js';
import { hmacSha256Hex } from '../../src/lib/crypto.js';
import { type AnswerCheck, answerChecker } from './api-document.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { freePort } from './free-port.js';

export { freePort };

/**
 * Runs `start` on a port from `freePort`, and again on another (five tries in all) if the port was
 * taken by the time it listened: another test process may have drawn the same port at once.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (error) {
      if (attempt === 5 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
}

/**
 * Another process of the same deployment, for the tests of what crosses processes: an app (role
 * `api`) with its own pool, change feed and caches on the PostgreSQL at `url`, listening, its change
 * feed connected (it waits up to 5 s for that). `close` stops the app, then its pool.
 */
export async function startOtherProcess(
  url: string,
  masterKey: Buffer,
): Promise<{ origin: string; close(): Promise<void> }> {
  return onFreePort(async (port) => {
    const database = openPostgres({ url });
    const config = loadConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      SWITCHBOARD_ROLE: 'api',
      SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    const app = await buildApp({ config, database, masterKey, logger: false, httpLimits: { refusalDelayMs: 0 } });
    const close = async () => {
      await app.close();
      await database.close();
    };
    try {
      await app.listen({ port, host: '127.0.0.1' });
    } catch (error) {
      await close();
      throw error;
    }
    for (let i = 0; i < 200 && !database.changes.live; i++) await new Promise((r) => setTimeout(r, 25));
    return { origin: `http://127.0.0.1:${port}`, close };
  });
}

export interface Org {
  apiKey: string;
  organization: { id: string; name: string };
  user: { id: string; email: string };
  /** Headers that authenticate as this organization. */
  auth: Record<string, string>;
}

export interface ClickToCallOptions {
  token: string;
  secret?: string;
  /** The exact body to send; an object is serialised once and that text is signed. */
  body?: string | Buffer | Record<string, unknown>;
  headers?: Record<string, string>;
  /** The request's path and query; default `/api/click-to-call`. */
  path?: string;
}

export interface TestApp {
  app: FastifyInstance;
  url: string;
  config: Config;
  db: TestDatabase;
  /** JSON request through real HTTP on loopback. */
  request(
    method: string,
    path: string,
    options?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  signup(name?: string): Promise<Org>;
  createAgent(org: Org, body?: Record<string, unknown>): Promise<any>;
  credentials(
    org: Org,
    agentId: string,
  ): Promise<{
    apiToken: string;
    apiSecret: string;
    endpoint: string;
    instructions: string;
    examples: Record<string, string>;
  }>;
  /** A click-to-call agent (`createAgent`) with its credentials beside it. */
  agentWithCredentials(
    org: Org,
    body?: Record<string, unknown>,
  ): Promise<{ agent: any } & Awaited<ReturnType<TestApp['credentials']>>>;
  clickToCall(options: ClickToCallOptions): Promise<{ status: number; body: any; headers: Headers }>;
  /** Polls GET /v1/calls/:id until `until` holds (default: the call has ended). */
  waitForCall(org: Org, callId: string, until?: (call: any) => boolean): Promise<any>;
  close(): Promise<void>;
}

export async function startTestApp(
  env: Record<string, string> = {},
  masterKey: Buffer = randomBytes(32),
  /** A logger (default none), a resolver for customers' hostnames (default the system's), HTTP limits. */
  deps: Pick<AppDeps, 'logger' | 'resolveHost' | 'httpLimits' | 'now'> = {},
): Promise<TestApp> {
  const db = await createTestDatabase();
  // Refusals of made-up tokens are answered at once here; test/refusal-pacing.test.ts checks the delay.
  const httpLimits = { refusalDelayMs: 0, ...deps.httpLimits };
  const { app, config, port } = await onFreePort(async (port) => {
    const config = loadConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      SWITCHBOARD_SIGNUP: 'open',
      SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'true',
      SWITCHBOARD_SWEEP_INTERVAL_MS: '100',
      // Each file signs up many organizations from 127.0.0.1; security.test.ts checks the default.
      SWITCHBOARD_SIGNUP_LIMIT_PER_HOUR: '100000',
      ...env,
    });
    const app = await buildApp({ config, database: db.database, masterKey, logger: false, ...deps, httpLimits });
    try {
      await app.listen({ port, host: '127.0.0.1' });
    } catch (error) {
      await app.close();
      throw error;
    }
    return { app, config, port };
  });
  const url = `http://127.0.0.1:${port}`;

  // Every answer `request` and `clickToCall` receive is checked against the served document
  // (test/helpers/api-document.ts): an answer it does not describe fails the test that got it.
  let check: Promise<AnswerCheck | undefined> | undefined;
  async function conforms(method: string, path: string, response: Response, body: unknown) {
    check ??= fetch(`${url}/openapi.json`).then(async (r) => (r.ok ? answerChecker(await r.json()) : undefined));
    const contentType = response.headers.get('content-type');
    const problems = (await check)?.({ method, path, status: response.status, contentType, body }) ?? [];
    if (problems.length > 0)
      throw new Error(
        `The answer is not what /openapi.json documents:\n${problems.join('\n')}\n${JSON.stringify(body)}`,
      );
  }

  async function request(
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const { response, text } = await fetchWithin(`${url}${path}`, { method, headers, body });
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    await conforms(method, path, response, parsed);
    return { status: response.status, body: parsed as any, headers: response.headers };
  }

  let orgCount = 0;
  const testApp: TestApp = {
    app,
    url,
    config,
    db,
    request,
    async signup(name) {
      orgCount++;
      const email = `user${orgCount}-${randomBytes(4).toString('hex')}@example.com`;
      const response = await request('POST', '/v1/signup', {
        body: { organization: name ?? `Org ${orgCount}`, email, password: 'correct horse battery' },
      });
      if (response.status !== 201)
        throw new Error(`signup failed: ${response.status} ${JSON.stringify(response.body)}`);
      return { ...response.body, auth: { authorization: `Bearer ${response.body.apiKey}` } };
    },
    async createAgent(org, body = {}) {
      const response = await request('POST', '/v1/agents', {
        headers: org.auth,
        body: { name: 'Sales agent', type: 'click_to_call', ...body },
      });
      if (response.status !== 201)
        throw new Error(`create agent failed: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body;
    },
    async credentials(org, agentId) {
      const response = await request('GET', `/v1/agents/${agentId}/credentials`, { headers: org.auth });
      if (response.status !== 200)
        throw new Error(`credentials failed: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body;
    },
    async agentWithCredentials(org, body = {}) {
      const agent = await testApp.createAgent(org, body);
      return { agent, ...(await testApp.credentials(org, agent.id)) };
    },
    async clickToCall({
      token,
      secret,
      body = { phone: '+14155550123', variables: { name: 'Ada' } },
      headers = {},
      path = '/api/click-to-call',
    }) {
      const raw = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
      const sent: Record<string, string> = { 'content-type': 'application/json', 'api-key': token };
      if (secret !== undefined) sent.signature = hmacSha256Hex(secret, raw);
      const { response, text } = await fetchWithin(`${url}${path}`, {
        method: 'POST',
        headers: { ...sent, ...headers },
        body: raw,
      });
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      await conforms('POST', '/api/click-to-call', response, parsed);
      return { status: response.status, body: parsed as any, headers: response.headers };
    },
    async waitForCall(org, callId, until = (call) => call.status === 'ended') {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const response = await request('GET', `/v1/calls/${callId}`, { headers: org.auth });
        if (response.status === 200 && until(response.body)) return response.body;
        if (Date.now() > deadline)
          throw new Error(`call ${callId} did not reach the state: ${JSON.stringify(response.body)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      await app.close();
      await db.drop();
    },
  };
  return testApp;
}

/**
 * No request the tests make should take seconds: one that hangs fails its test naming itself, rather
 * than as a bare test timeout with the cause unknown.
 */
async function fetchWithin(url: string, init: RequestInit & { method: string }) {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) });
    return { response, text: await response.text() };
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') {
      throw new Error(`${init.method} ${new URL(url).pathname} had no answer within 20 s`);
    }
    throw error;
  }
}

let phoneCounter = 100;
/** A new valid E.164 number each time, so tests in a file never collide on the ctc:007 guard. */
export function nextPhone(): string {
  return `+1415555${String(phoneCounter++).padStart(4, '0')}`;
}
