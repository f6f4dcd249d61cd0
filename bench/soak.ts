/**
 * The soak test (issue 7, `npm run soak`): the built server on the embedded database, on loopback
 * only, driven for SOAK_SECONDS (default 600) with signed click-to-calls at SOAK_RATE per second
 * (default 20). Every call is simulated with a tool call to a local endpoint and a webhook to a
 * local receiver. The server's memory is sampled every 5 s.
 *
 * It passes when no request failed, every accepted call ended with its tool call made and its
 * outcome delivered, and memory after the warm-up (the first fifth of the run, at least 60 s) grew
 * no more than 10 %: the mean RSS of the last minute against the first minute after the warm-up.
 * It stops by itself, prints its figures, writes them to test-results/soak.json, and exits 1 when
 * something did not hold.
 */
import { createHmac } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { killAll, killChildrenOnExit, ROOT, rssMb, sleep } from './lib/children.js';
import { validPhoneNumbers } from './lib/phones.js';
import { api, startSwitchboard } from './lib/switchboard.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const RATE = Number(process.env.SOAK_RATE ?? 20);
const SAMPLE_EVERY_MS = 5000;
const MAX_GROWTH = 0.1;

interface Local {
  url: string;
  server: Server;
  received: Set<string>;
  count: number;
}

/** A local HTTP endpoint that answers JSON and counts what it got (by `key` of each request). */
async function startLocal(key: (headers: Record<string, unknown>, body: string) => string): Promise<Local> {
  const local: Local = { url: '', server: createServer(), received: new Set(), count: 0 };
  local.server.on('request', (req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      local.count++;
      local.received.add(key(req.headers, body));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"leadId":"L-1"}');
    });
  });
  await new Promise<void>((resolve) => local.server.listen(0, '127.0.0.1', resolve));
  const address = local.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  local.url = `http://127.0.0.1:${address.port}`;
  return local;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

async function soak(): Promise<boolean> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchboard-soak-'));
  const tool = await startLocal((_headers, body) => body);
  const hooks = await startLocal((headers) => String(headers['webhook-id']));
  const server = await startSwitchboard('switchboard (soak)', {
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_SIGNUP: 'open',
    SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  const { origin } = server;
  try {
    const signup = await api(origin, 'POST', '/v1/signup', {
      body: { organization: 'Soak', email: 'soak@example.com', password: 'correct horse battery' },
    });
    const apiKey = (signup.body as { apiKey: string }).apiKey;
    const createdTool = await api(origin, 'POST', '/v1/tools', {
      apiKey,
      body: {
        name: 'create_lead',
        method: 'POST',
        url: `${tool.url}/leads`,
        parameters: [{ name: 'email', location: 'body', type: 'string', fillMode: 'ai', required: true }],
      },
    });
    const agent = await api(origin, 'POST', '/v1/agents', {
      apiKey,
      body: {
        name: 'Soak agent',
        firstMessage: 'Hi {{name}}',
        rateLimitPerMinute: null,
        toolIds: [(createdTool.body as { id: string }).id],
        simulator: {
          turns: [
            { role: 'user', text: 'My email is ada@example.com' },
            { tool: 'create_lead', args: { email: 'ada@example.com' } },
            { role: 'agent', text: 'Your lead is {{tool.create_lead.leadId}}' },
          ],
          outcome: { status: 'SOLD', collectedData: { email: 'ada@example.com' } },
          durationSeconds: 30,
          delayMs: 500,
        },
      },
    });
    const agentId = (agent.body as { id: string }).id;
    await api(origin, 'POST', `/v1/agents/${agentId}/integrations`, { apiKey, body: { url: `${hooks.url}/hooks` } });
    const credentials = (await api(origin, 'GET', `/v1/agents/${agentId}/credentials`, { apiKey })).body as {
      apiToken: string;
      apiSecret: string;
    };

    const total = Math.ceil(SECONDS * RATE);
    const phones = validPhoneNumbers(total);
    const dispatcher = new Agent({ connections: 64 });
    const statuses: Record<string, number> = {};
    const samples: { atS: number; rssMb: number }[] = [];
    const started = performance.now();
    let sent = 0;
    let inFlight = 0;
    const count = (status: string) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
    };
    // The slowest answer in each sampling window: where the server stalled, if it did.
    const slowest = new Map<number, number>();
    const send = async (phone: string) => {
      inFlight++;
      const sentAt = performance.now();
      const body = JSON.stringify({ phone, variables: { name: 'Ada' } });
      try {
        const response = await request(`${origin}/api/click-to-call`, {
          method: 'POST',
          dispatcher,
          headers: {
            'content-type': 'application/json',
            'api-key': credentials.apiToken,
            signature: createHmac('sha256', credentials.apiSecret).update(body).digest('hex'),
          },
          body,
          headersTimeout: 10_000,
          bodyTimeout: 10_000,
        });
        await response.body.text();
        count(String(response.statusCode));
      } catch (error) {
        count(`error:${(error as { code?: string }).code ?? 'unknown'}`);
      } finally {
        inFlight--;
        const window = Math.floor((sentAt - started) / SAMPLE_EVERY_MS);
        slowest.set(window, Math.max(slowest.get(window) ?? 0, performance.now() - sentAt));
      }
    };

    let nextSample = 0;
    const ticker = setInterval(() => {
      const elapsedS = (performance.now() - started) / 1000;
      const due = Math.min(total, Math.floor(elapsedS * RATE));
      while (sent < due) void send(phones[sent++] as string);
    }, 50);
    while (sent < total) {
      const elapsed = performance.now() - started;
      if (elapsed >= nextSample) {
        samples.push({ atS: Math.round(elapsed / 1000), rssMb: await rssMb(server.child.pid) });
        if (samples.length % 12 === 1) {
          console.log(`[soak] ${samples.at(-1)?.atS} s: ${sent} sent, RSS ${samples.at(-1)?.rssMb.toFixed(1)} MB`);
        }
        nextSample += SAMPLE_EVERY_MS;
      }
      await sleep(100);
    }
    clearInterval(ticker);
    while (inFlight > 0) await sleep(50);
    samples.push({ atS: Math.round((performance.now() - started) / 1000), rssMb: await rssMb(server.child.pid) });

    // Drain: every accepted call ends, runs its tool and has its outcome delivered.
    const accepted = statuses['200'] ?? 0;
    const drainDeadline = performance.now() + 120_000;
    while (performance.now() < drainDeadline && (hooks.received.size < accepted || tool.count < accepted)) {
      await sleep(250);
    }
    await dispatcher.close();

    const warmupS = Math.max(60, SECONDS / 5);
    const afterWarmup = samples.filter((s) => s.atS >= warmupS && s.atS < warmupS + 60).map((s) => s.rssMb);
    const lastMinute = samples.filter((s) => s.atS >= SECONDS - 60).map((s) => s.rssMb);
    const growth = mean(lastMinute) / mean(afterWarmup) - 1;
    const failures: string[] = [];
    if (accepted !== total)
      failures.push(`${total - accepted} of ${total} requests not accepted: ${JSON.stringify(statuses)}`);
    if (hooks.received.size !== accepted)
      failures.push(`${hooks.received.size} outcomes delivered for ${accepted} calls`);
    if (tool.count !== accepted) failures.push(`${tool.count} tool calls for ${accepted} calls`);
    if (!(growth <= MAX_GROWTH)) failures.push(`memory grew ${(growth * 100).toFixed(1)} % after the warm-up`);

    const figures = {
      seconds: SECONDS,
      ratePerSecond: RATE,
      requests: total,
      statuses,
      callsEnded: accepted,
      toolCalls: tool.count,
      outcomesDelivered: hooks.received.size,
      webhookRequests: hooks.count,
      rssMb: {
        start: samples[0]?.rssMb,
        afterWarmupMean: mean(afterWarmup),
        lastMinuteMean: mean(lastMinute),
        max: Math.max(...samples.map((s) => s.rssMb)),
      },
      growthAfterWarmupPercent: Number((growth * 100).toFixed(1)),
      slowestAnswerMsByWindow: Object.fromEntries(
        [...slowest].map(([window, ms]) => [`${window * (SAMPLE_EVERY_MS / 1000)}s`, Math.round(ms)]),
      ),
      samples,
      failures,
    };
    await mkdir(path.join(ROOT, 'test-results'), { recursive: true });
    await writeFile(path.join(ROOT, 'test-results/soak.json'), `${JSON.stringify(figures, null, 2)}\n`);
    const { rssMb: rss } = figures;
    console.log(
      [
        `[soak] ${SECONDS} s at ${RATE} click-to-calls/s: ${total} requests, statuses ${JSON.stringify(statuses)}`,
        `[soak] ${accepted} calls ended, ${tool.count} tool calls, ${hooks.received.size} outcomes delivered (${hooks.count} webhook requests)`,
        `[soak] slowest answers: ${[...slowest]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 5)
          .map(([window, ms]) => `${Math.round(ms)} ms at ${window * (SAMPLE_EVERY_MS / 1000)} s`)
          .join(', ')}`,
        `[soak] RSS: ${rss.start?.toFixed(1)} MB at start, ${rss.afterWarmupMean.toFixed(1)} MB after the warm-up, ${rss.lastMinuteMean.toFixed(1)} MB in the last minute (${figures.growthAfterWarmupPercent} %), max ${rss.max.toFixed(1)} MB`,
        failures.length === 0 ? '[soak] PASS' : `[soak] FAIL: ${failures.join('; ')}`,
      ].join('\n'),
    );
    return failures.length === 0;
  } finally {
    await server.child.stop(15_000);
    tool.server.close();
    hooks.server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

killChildrenOnExit();
let passed = false;
try {
  passed = await soak();
} finally {
  killAll();
}
process.exit(passed ? 0 : 1);
