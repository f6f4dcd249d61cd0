import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client.js';
import { openPostgres } from '../src/db/postgres.js';
import { createSecretBox } from '../src/lib/crypto.js';
import { createOutboundClient } from '../src/lib/outbound-http.js';
import { createToolCallCache } from '../src/tools/tool-call-cache.js';
import { createToolsRepository } from '../src/tools/tools.repository.js';
import { createToolsService, type ToolsService } from '../src/tools/tools.service.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

// Tool calls are served from each process's memory (tools.service + tool-call-cache). Two processes
// on one PostgreSQL are two tools services here, each with its own connections and change feed, as
// `src/app.ts` composes them; the test app is a third, through which tools are changed.
describe.runIf(process.env.TEST_DATABASE_URL)('tool calls served by several processes', () => {
  let t: TestApp;
  let org: Org;
  let crm: Receiver;
  const processes: { database: Database; tools: ToolsService }[] = [];

  async function startProcess(masterKey: Buffer) {
    const database = openPostgres({ url: t.db.url! });
    const tools = createToolsService({
      repository: createToolsRepository(database.db),
      secretBox: createSecretBox(masterKey),
      outbound: createOutboundClient({ allowPrivateNetworks: true }),
      allowPrivateNetworks: true,
      changes: database.changes,
      cache: createToolCallCache({ feed: database.changes }),
    });
    for (let i = 0; i < 200 && !database.changes.live; i++) await new Promise((r) => setTimeout(r, 25));
    expect(database.changes.live).toBe(true);
    processes.push({ database, tools });
    return tools;
  }

  const masterKey = randomBytes(32);
  beforeAll(async () => {
    t = await startTestApp({}, masterKey);
    org = await t.signup();
    crm = await startReceiver();
  });
  afterAll(async () => {
    for (const p of processes) await p.database.close();
    await crm.close();
    await t.close();
  });

  /** Polls until `check` passes: a change reaches another process after one NOTIFY round trip. */
  async function eventually(check: () => Promise<void>) {
    const deadline = Date.now() + 5000;
    for (;;) {
      try {
        return await check();
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }

  it('a value collected in one process, and a tool changed in a third, reach the next tool call in another', async () => {
    const collect = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: {
        name: 'collect_email',
        method: 'POST',
        url: `${crm.url}/collect`,
        parameters: [{ name: 'email', location: 'body', type: 'string', fillMode: 'ai' }],
      },
    });
    const lookup = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: {
        name: 'lookup',
        method: 'GET',
        url: `${crm.url}/v1/lookup`,
        variables: [{ name: 'email' }],
        parameters: [{ name: 'email', location: 'query', type: 'string', fillMode: 'variable', value: '{{email}}' }],
      },
    });
    const agent = await t.createAgent(org, {
      toolIds: [collect.body.id, lookup.body.id],
      simulator: { delayMs: 600_000 },
      maxCallDurationSeconds: 3600,
    });
    const creds = await t.credentials(org, agent.id);
    const started = await t.clickToCall({
      token: creds.apiToken,
      secret: creds.apiSecret,
      body: { phone: nextPhone(), variables: { email: 'ctc@example.com' } },
    });
    const callId = started.body.callId as string;
    const a = await startProcess(masterKey);
    const b = await startProcess(masterKey);
    const lastUrl = () => crm.requests.at(-1)!.url;

    await b.invokeDuringCall({ callId, name: 'lookup', args: {} });
    expect(lastUrl()).toBe('/v1/lookup?email=ctc%40example.com');

    await a.invokeDuringCall({ callId, name: 'collect_email', args: { email: 'spoken@example.com' } });
    await a.settled(callId);
    await eventually(async () => {
      await b.invokeDuringCall({ callId, name: 'lookup', args: {} });
      expect(lastUrl()).toBe('/v1/lookup?email=spoken%40example.com');
    });

    const patched = await t.request('PATCH', `/v1/tools/${lookup.body.id}`, {
      headers: org.auth,
      body: { url: `${crm.url}/v2/lookup` },
    });
    expect(patched.status).toBe(200);
    await eventually(async () => {
      await b.invokeDuringCall({ callId, name: 'lookup', args: {} });
      expect(lastUrl()).toBe('/v2/lookup?email=spoken%40example.com');
    });

    // Detached in another process: the next call of it is refused here.
    await t.request('PATCH', `/v1/agents/${agent.id}`, { headers: org.auth, body: { toolIds: [collect.body.id] } });
    await eventually(async () => {
      const outcome = await b.invokeDuringCall({ callId, name: 'lookup', args: {} });
      expect(outcome.error).toBe('No tool named "lookup" is attached to this agent');
    });
  });
});
