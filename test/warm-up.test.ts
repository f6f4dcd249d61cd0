import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { until } from './helpers/wait.js';

// Decision 0093: the first call through Vapi or Retell after a start waited 110–180 ms for undici and
// the provider's SDK to load. A moment after the server is ready, where some organization has a
// credential of a provider, they are loaded ahead; a process with none keeps that memory.

const LINE = 'loaded ahead what calls to providers need';

describe('loading ahead what provider calls need', () => {
  const masterKey = randomBytes(32);
  let t: TestApp;
  let vapi: FakeVapi;
  afterAll(async () => {
    await vapi?.close();
    await t?.close();
  });

  /** Another app on the test's database, as a restarted process would be; its log lines, parsed. */
  async function restarted() {
    const lines: { msg?: string; providers?: string[] }[] = [];
    const app = await buildApp({
      config: loadConfig({ LOG_LEVEL: 'debug', SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'true' }),
      database: t.db.database,
      masterKey,
      logger: { level: 'debug', stream: { write: (line: string) => void lines.push(JSON.parse(line)) } },
    });
    await app.ready();
    return { app, lines };
  }

  it('loads nothing ahead while no organization has a provider credential', async () => {
    t = await startTestApp({}, masterKey);
    await t.signup();
    const { app, lines } = await restarted();
    // The load would come a second after the start; a second and a half passes without it.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await app.close();
    expect(lines.filter((line) => line.msg === LINE)).toEqual([]);
  });

  it('loads undici and the SDK of each provider some organization has a credential of', async () => {
    vapi = await startFakeVapi();
    const org = await t.signup();
    const created = await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: {
        provider: 'vapi',
        name: 'Vapi',
        apiKey: vapi.apiKey,
        webhookSecret: 'vapi_hook_secret_long_enough_1',
        baseUrl: vapi.url,
      },
    });
    expect(created.status).toBe(201);
    const { app, lines } = await restarted();
    try {
      const loaded = await until('the load ahead', async () => lines.find((line) => line.msg === LINE));
      expect(loaded.providers).toEqual(['vapi']);
    } finally {
      await app.close();
    }
  });
});
