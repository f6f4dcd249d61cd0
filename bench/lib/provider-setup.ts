/**
 * What the provider benchmarks set up: a server's database (a new PostgreSQL database, or a
 * PGlite data dir), and a click-to-call agent on a local fake Vapi, made through the public API
 * as a customer makes one.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { sleep } from './children.js';
import type { Engine } from './database.js';
import type { BenchFakeVapi } from './fake-vapi.js';
import { api, type BenchAgent } from './switchboard.js';

const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The environment of a server on `engine`, with a new empty database; `drop` removes it. Outbound
 * requests may reach private addresses (`SWITCHBOARD_ALLOW_PRIVATE_NETWORKS`): the fake Vapi and
 * the customer's receiver are on loopback, which the address guard refuses by default.
 */
export async function serverSettings(
  engine: Engine,
  purpose: string,
): Promise<{ settings: Record<string, string>; drop(): Promise<void> }> {
  const common = { SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'true' };
  if (engine === 'pglite') {
    const dir = await mkdtemp(path.join(os.tmpdir(), `switchboard-bench-${purpose}-`));
    return {
      settings: { ...common, SWITCHBOARD_DATA_DIR: dir },
      drop: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const adminUrl = new URL(PG_ADMIN_URL);
  if (adminUrl.hostname !== '127.0.0.1') throw new Error(`only a PostgreSQL on 127.0.0.1, not ${adminUrl.host}`);
  const name = `switchboard_bench_${purpose}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    settings: {
      ...common,
      DATABASE_URL: url.toString(),
      SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
      SWITCHBOARD_SIGNUP: 'open',
    },
    async drop() {
      const dropper = new pg.Client({ connectionString: PG_ADMIN_URL });
      await dropper.connect();
      try {
        await dropper.query(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

async function expectStatus<T>(
  pending: Promise<{ status: number; body: unknown }>,
  status: number,
  what: string,
): Promise<T> {
  const response = await pending;
  if (response.status !== status)
    throw new Error(`${what}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as T;
}

/** Waits until the agent is published at its provider (`providerSync.state` is `synced`), at most 30 s. */
async function waitUntilPublished(origin: string, apiKey: string, agentId: string): Promise<void> {
  const since = performance.now();
  for (;;) {
    const current = await expectStatus<{ providerSync?: { state?: string; error?: unknown } }>(
      api(origin, 'GET', `/v1/agents/${agentId}`, { apiKey }),
      200,
      'read the agent',
    );
    if (current.providerSync?.state === 'synced') return;
    if (performance.now() - since > 30_000)
      throw new Error(`the agent was not published within 30 s: ${JSON.stringify(current.providerSync)}`);
    await sleep(100);
  }
}

/** The agent's configuration in the provider benchmarks: the default, with a rate limit that never refuses. */
const BENCH_AGENT = {
  type: 'click_to_call',
  prompt: 'Call {{name}} about the quote they asked for.',
  firstMessage: 'Hi {{name}}!',
  rateLimitPerMinute: 1_000_000,
} as const;

/**
 * A provider credential (`credential`, the body of `POST /v1/provider-credentials`) and a
 * click-to-call agent on it, published (waits until its `providerSync` is `synced`); with
 * `integrationUrl`, a webhook integration to it. The agent's click-to-call credentials, and the
 * provider credential's id.
 */
async function createProviderAgent(
  origin: string,
  apiKey: string,
  credential: { provider: 'vapi' | 'retell'; name: string } & Record<string, string>,
  { fromNumber, integrationUrl }: { fromNumber: string; integrationUrl?: string },
): Promise<BenchAgent & { credentialId: string }> {
  const { id: credentialId } = await expectStatus<{ id: string }>(
    api(origin, 'POST', '/v1/provider-credentials', { apiKey, body: credential }),
    201,
    `create the ${credential.name} credential`,
  );
  const agent = await expectStatus<{ id: string }>(
    api(origin, 'POST', '/v1/agents', {
      apiKey,
      body: {
        ...BENCH_AGENT,
        name: `Bench ${credential.name} agent`,
        provider: credential.provider,
        providerCredentialId: credentialId,
        fromNumber,
      },
    }),
    201,
    `create the ${credential.name} agent`,
  );
  if (integrationUrl) {
    await expectStatus(
      api(origin, 'POST', `/v1/agents/${agent.id}/integrations`, {
        apiKey,
        body: { url: integrationUrl, authorization: 'tok_bench_0123456789' },
      }),
      201,
      'create the integration',
    );
  }
  await waitUntilPublished(origin, apiKey, agent.id);
  const { apiToken, apiSecret } = await expectStatus<{ apiToken: string; apiSecret: string }>(
    api(origin, 'GET', `/v1/agents/${agent.id}/credentials`, { apiKey }),
    200,
    'credentials',
  );
  return { agentId: agent.id, apiToken, apiSecret, credentialId };
}

export interface VapiBenchAgent extends BenchAgent {
  /** The `x-vapi-secret` Vapi sends back (the credential's webhook secret). */
  webhookSecret: string;
}

/**
 * A Vapi credential on `vapi`, and a click-to-call agent on it with the default configuration but
 * a rate limit high enough never to refuse (1,000,000 a minute), published (waits until its
 * `providerSync` is `synced`); with `integrationUrl`, a webhook integration to it.
 */
export async function createVapiAgent(
  origin: string,
  apiKey: string,
  vapi: BenchFakeVapi,
  options: { fromNumber: string; integrationUrl?: string },
): Promise<VapiBenchAgent> {
  const webhookSecret = `vapi_bench_${randomBytes(16).toString('hex')}`;
  const { agentId, apiToken, apiSecret } = await createProviderAgent(
    origin,
    apiKey,
    { provider: 'vapi', name: 'Vapi', apiKey: vapi.apiKey, webhookSecret, baseUrl: vapi.url },
    options,
  );
  return { agentId, apiToken, apiSecret, webhookSecret };
}

export interface RetellBenchAgent extends BenchAgent {
  /** The key Retell signs its webhooks with (the credential's API key). */
  signingKey: string;
  /** Our webhook's path for the credential, as the published agent has it. */
  webhookPath: string;
}

/**
 * A Retell credential on `retell` (a local fake Retell), and a click-to-call agent on it configured as
 * createVapiAgent's, published; with `integrationUrl`, a webhook integration to it.
 */
export async function createRetellAgent(
  origin: string,
  apiKey: string,
  retell: { url: string; apiKey: string },
  options: { fromNumber: string; integrationUrl?: string },
): Promise<RetellBenchAgent> {
  const { credentialId, ...agent } = await createProviderAgent(
    origin,
    apiKey,
    { provider: 'retell', name: 'Retell', apiKey: retell.apiKey, baseUrl: retell.url },
    options,
  );
  return { ...agent, signingKey: retell.apiKey, webhookPath: `/providers/retell/webhook?credential=${credentialId}` };
}
