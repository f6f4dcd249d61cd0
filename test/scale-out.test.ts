import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, nextPhone } from './helpers/app.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { runCli, type ServerProcess, startServerProcess } from './helpers/process.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';
import { until } from './helpers/wait.js';

// The scale-out recipe of docs/operations.md, tested: two API processes and one worker on one
// PostgreSQL, a call run end to end through them, and every role stopping cleanly on SIGTERM.
const started: ServerProcess[] = [];
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop('SIGKILL')));
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function json(url: string, method: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe.runIf(process.env.TEST_DATABASE_URL)('two API processes and a worker on one PostgreSQL', () => {
  it('run a click-to-call end to end: accepted by one, read through the other, delivered by the worker', async () => {
    const db: TestDatabase = await createTestDatabase();
    cleanups.push(() => db.drop());
    const tool: Receiver = await startReceiver((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"leadId":"L-9"}');
    });
    const hooks: Receiver = await startReceiver();
    cleanups.push(
      () => tool.close(),
      () => hooks.close(),
    );
    const shared = {
      DATABASE_URL: db.url as string,
      SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
      SWITCHBOARD_SIGNUP: 'open',
      SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'true',
    };
    const [a, b] = await Promise.all([
      startServerProcess({ ...shared, SWITCHBOARD_ROLE: 'api' }),
      startServerProcess({ ...shared, SWITCHBOARD_ROLE: 'api' }),
    ]);
    started.push(a, b);
    const workerUrl = `http://127.0.0.1:${await freePort()}`;
    const worker = runCli(['serve'], {
      ...shared,
      SWITCHBOARD_ROLE: 'worker',
      SWITCHBOARD_WORKER_PORT: new URL(workerUrl).port,
      LOG_LEVEL: 'info',
    });
    cleanups.push(async () => {
      worker.child.kill('SIGKILL');
      await worker.exited;
    });
    await until(
      'the worker to start',
      async () => (worker.stdout().includes('worker started') ? true : undefined),
      30_000,
    );

    // Set up through A.
    const signup = await json(`${a.url}/v1/signup`, 'POST', {
      organization: 'Scaled',
      email: `scale-${randomBytes(4).toString('hex')}@example.com`,
      password: 'correct horse battery',
    });
    const auth = { authorization: `Bearer ${signup.body.apiKey}` };
    const createdTool = await json(
      `${a.url}/v1/tools`,
      'POST',
      {
        name: 'create_lead',
        method: 'POST',
        url: `${tool.url}/leads`,
        parameters: [{ name: 'email', location: 'body', type: 'string', fillMode: 'ai' }],
      },
      auth,
    );
    const agent = await json(
      `${a.url}/v1/agents`,
      'POST',
      {
        name: 'Scaled agent',
        firstMessage: 'Hi {{name}}',
        toolIds: [createdTool.body.id],
        simulator: {
          turns: [
            { tool: 'create_lead', args: { email: 'ada@example.com' } },
            { role: 'agent', text: 'Lead {{tool.create_lead.leadId}}' },
          ],
          outcome: { status: 'SOLD' },
        },
      },
      auth,
    );
    expect(agent.status).toBe(201);
    await json(`${a.url}/v1/agents/${agent.body.id}/integrations`, 'POST', { url: `${hooks.url}/hooks` }, auth);
    const credentials = await json(`${a.url}/v1/agents/${agent.body.id}/credentials`, 'GET', undefined, auth);

    // The call goes in through B.
    const body = JSON.stringify({ phone: nextPhone(), variables: { name: 'Ada' } });
    const placed = await fetch(`${b.url}/api/click-to-call`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'api-key': credentials.body.apiToken,
        signature: createHmac('sha256', credentials.body.apiSecret).update(body).digest('hex'),
      },
      body,
    });
    expect(placed.status).toBe(200);
    const { callId } = (await placed.json()) as { callId: string };

    // Read through A: ended, with its tool run; delivered by the worker (the API processes deliver nothing).
    const call = await until(
      'the call ended and its outcome delivered',
      async () => {
        const read = await json(`${a.url}/v1/calls/${callId}`, 'GET', undefined, auth);
        return read.body.status === 'ended' && read.body.deliveries[0]?.state === 'delivered' ? read.body : undefined;
      },
      20_000,
    );
    expect(call.outcome).toBe('SOLD');
    expect(call.transcript.map((turn: { text: string }) => turn.text)).toEqual([
      'Hi Ada',
      '{"leadId":"L-9"}',
      'Lead L-9',
    ]);
    expect(call.toolInvocations).toHaveLength(1);
    expect(tool.requests).toHaveLength(1);
    expect(hooks.requests).toHaveLength(1);
    expect(JSON.parse(hooks.requests[0]?.body ?? '{}')).toMatchObject({ callId, status: 'SOLD' });

    // The worker serves its health and its own metrics (the delivery it made), and nothing else.
    expect((await fetch(`${workerUrl}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${workerUrl}/metrics`)).text();
    expect(metrics).toMatch(/^switchboard_delivery_attempts_total\{result="delivered"\} 1$/m);
    for (const path of ['/v1/agents', '/api/click-to-call', '/openapi.json', '/']) {
      expect((await fetch(`${workerUrl}${path}`, { headers: auth })).status).toBe(404);
    }
    // The API processes made no delivery attempt: theirs stay at zero.
    expect(await (await fetch(`${a.url}/metrics`)).text()).not.toMatch(/^switchboard_delivery_attempts_total\{/m);

    // Every role stops cleanly on SIGTERM.
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(await a.stop('SIGTERM')).toBe(0);
    expect(await b.stop('SIGTERM')).toBe(0);
  }, 120_000);
});
