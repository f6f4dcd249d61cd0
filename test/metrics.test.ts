import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../src/metrics/metrics.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';
import { until } from './helpers/wait.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * A small parser of the Prometheus text format (0.0.4): every line is a `# HELP`, a `# TYPE` or a
 * sample `name{label="value",…} number`; anything else fails the test.
 */
function parsePrometheus(text: string): { samples: Sample[]; help: Map<string, string>; types: Map<string, string> } {
  const samples: Sample[] = [];
  const help = new Map<string, string>();
  const types = new Map<string, string>();
  const name = '[a-zA-Z_:][a-zA-Z0-9_:]*';
  const sampleLine = new RegExp(`^(${name})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
  const label = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/gy;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = new RegExp(`^# (HELP|TYPE) (${name}) (.*)$`).exec(line);
    if (meta) {
      (meta[1] === 'HELP' ? help : types).set(meta[2]!, meta[3]!);
      continue;
    }
    const match = sampleLine.exec(line);
    if (!match) throw new Error(`not a Prometheus text line: ${line}`);
    const labels: Record<string, string> = {};
    const body = match[2] ?? '';
    label.lastIndex = 0;
    while (label.lastIndex < body.length) {
      const pair = label.exec(body);
      if (!pair) throw new Error(`bad labels in: ${line}`);
      labels[pair[1]!] = pair[2]!;
    }
    // Values are Go floats: NaN in any case (prom-client writes "Nan"), +Inf, -Inf, or a number.
    const raw = match[3]!;
    const isNaNText = /^nan$/i.test(raw);
    const value = isNaNText ? Number.NaN : Number(raw.replace(/^([+-])Inf$/, '$1Infinity'));
    if (!isNaNText && Number.isNaN(value)) throw new Error(`bad value in: ${line}`);
    samples.push({ name: match[1]!, labels, value });
  }
  return { samples, help, types };
}

let t: TestApp;
let org: Org;
const receivers: Receiver[] = [];

async function scrape() {
  const response = await fetch(`${t.url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await response.text());
}

/** The sum of the samples named `name` whose labels include `labels` (0 when none). */
async function value(name: string, labels: Record<string, string> = {}, from?: TestApp): Promise<number> {
  const target = from ?? t;
  const text = await (await fetch(`${target.url}/metrics`)).text();
  return parsePrometheus(text)
    .samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

async function receiver(handler?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(handler);
  receivers.push(r);
  return r;
}

async function agentWithCreds(app: TestApp, owner: Org, body: Record<string, unknown> = {}) {
  const agent = await app.createAgent(owner, body);
  return { agent, creds: await app.credentials(owner, agent.id) };
}

beforeAll(async () => {
  // Failed deliveries wait an hour for their retry: they stay pending while the test looks.
  t = await startTestApp({ SWITCHBOARD_RETRY_SCHEDULE: '3600', SWITCHBOARD_PUBLISH_INTERVAL_MS: '100' });
  org = await t.signup();
});
afterAll(async () => {
  await t.close();
  await Promise.all(receivers.map((r) => r.close()));
});

describe('GET /metrics', () => {
  it('answers Prometheus text without authentication, every metric documented, process metrics included', async () => {
    const { samples, help, types } = await scrape();
    for (const sample of samples) {
      const family = [...types.keys()].find(
        (f) => sample.name === f || /^_(bucket|sum|count|total|created)$/.test(sample.name.slice(f.length)),
      );
      expect(family, sample.name).toBeDefined();
      expect(help.get(family!), family).toBeTruthy();
    }
    for (const family of [
      'switchboard_http_request_duration_seconds',
      'switchboard_click_to_call_results_total',
      'switchboard_calls_ended_total',
      'switchboard_tool_invocation_duration_seconds',
      'switchboard_tool_invocation_errors_total',
      'switchboard_delivery_attempts_total',
      'switchboard_provider_sync_failures_total',
      'switchboard_delivery_queue_lag_seconds',
      'switchboard_delivery_queue_due',
      'switchboard_delivery_queue_pending',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(help.has(family), family).toBe(true);
    }
    expect(samples.find((s) => s.name === 'process_resident_memory_bytes')!.value).toBeGreaterThan(1e6);
  });

  it('times API requests by route pattern, method and status, never by raw URL', async () => {
    const agent = await t.createAgent(org);
    const labels = { route: '/v1/agents/:id', method: 'GET', status_code: '200' };
    const before = await value('switchboard_http_request_duration_seconds_count', labels);
    expect((await t.request('GET', `/v1/agents/${agent.id}`, { headers: org.auth })).status).toBe(200);
    expect((await t.request('GET', `/v1/agents/${agent.id}`, { headers: org.auth })).status).toBe(200);
    expect(await value('switchboard_http_request_duration_seconds_count', labels)).toBe(before + 2);

    const missing = { route: '/v1/agents/:id', method: 'GET', status_code: '404' };
    const missingBefore = await value('switchboard_http_request_duration_seconds_count', missing);
    expect((await t.request('GET', '/v1/agents/agt_nothere', { headers: org.auth })).status).toBe(404);
    expect(await value('switchboard_http_request_duration_seconds_count', missing)).toBe(missingBefore + 1);

    // A URL no route matches is counted under one fixed label.
    const unmatched = { route: 'unmatched', method: 'GET' };
    const unmatchedBefore = await value('switchboard_http_request_duration_seconds_count', unmatched);
    await t.request('GET', '/v1/no-such-thing/123');
    expect(await value('switchboard_http_request_duration_seconds_count', unmatched)).toBe(unmatchedBefore + 1);
    const { samples } = await scrape();
    expect(samples.some((s) => s.labels.route?.includes('agt_') || s.labels.route?.includes('no-such'))).toBe(false);
  });

  it('counts click-to-call answers by code, and ended calls by outcome and provider', async () => {
    const { creds } = await agentWithCreds(t, org, { simulator: { turns: [], outcome: { status: 'SOLD' } } });
    const wrong = await value('switchboard_click_to_call_results_total', { code: 'ctc:003' });
    const success = await value('switchboard_click_to_call_results_total', { code: 'success' });
    const sold = await value('switchboard_calls_ended_total', { outcome: 'SOLD', provider: 'simulator' });

    expect((await t.clickToCall({ token: 'not-a-token', secret: 'x' })).status).toBe(403);
    expect(await value('switchboard_click_to_call_results_total', { code: 'ctc:003' })).toBe(wrong + 1);

    const placed = await t.clickToCall({
      token: creds.apiToken,
      secret: creds.apiSecret,
      body: { phone: nextPhone() },
    });
    expect(placed.status).toBe(200);
    expect(await value('switchboard_click_to_call_results_total', { code: 'success' })).toBe(success + 1);
    await t.waitForCall(org, placed.body.callId);
    // Counted when the ending statement answers, which on a pool may be just after another
    // connection already reads the call as ended.
    await until('the ended call counted', async () =>
      (await value('switchboard_calls_ended_total', { outcome: 'SOLD', provider: 'simulator' })) === sold + 1
        ? true
        : undefined,
    );
  });

  it('shows the calls not yet ended by status, and the call leaving them when it ends', async () => {
    const { creds } = await agentWithCreds(t, org, {
      simulator: { delayMs: 3000, turns: [{ role: 'agent', text: 'Hello' }] },
    });
    const open = () => value('switchboard_calls_open', { status: 'in_progress' });
    const before = await open();
    expect(await value('switchboard_calls_open', { status: 'queued' })).toBeGreaterThanOrEqual(0);
    const placed = await t.clickToCall({
      token: creds.apiToken,
      secret: creds.apiSecret,
      body: { phone: nextPhone() },
    });
    expect(placed.status).toBe(200);
    await until('the call counted in progress', async () => ((await open()) === before + 1 ? true : undefined));
    await t.waitForCall(org, placed.body.callId);
    expect(await open()).toBe(before);
  });

  it('times tool runs during calls by result kind, and counts their errors', async () => {
    const crm = await receiver((request, response) => {
      response.writeHead(request.url.startsWith('/fail') ? 500 : 200, { 'content-type': 'application/json' });
      response.end('{"id":"L-1"}');
    });
    const tool = async (name: string, path: string) => {
      const created = await t.request('POST', '/v1/tools', {
        headers: org.auth,
        body: { name, method: 'POST', url: `${crm.url}${path}`, parameters: [] },
      });
      expect(created.status).toBe(201);
      return created.body.id as string;
    };
    const ok = await tool('create_lead', '/leads');
    const failing = await tool('broken_lead', '/fail');
    const { creds } = await agentWithCreds(t, org, {
      toolIds: [ok, failing],
      simulator: {
        turns: [
          { tool: 'create_lead', args: {} },
          { tool: 'broken_lead', args: {} },
        ],
      },
    });
    const okBefore = await value('switchboard_tool_invocation_duration_seconds_count', { result: 'ok' });
    const failedBefore = await value('switchboard_tool_invocation_errors_total', { result: 'http_status' });
    const placed = await t.clickToCall({
      token: creds.apiToken,
      secret: creds.apiSecret,
      body: { phone: nextPhone() },
    });
    expect(placed.status).toBe(200);
    await t.waitForCall(org, placed.body.callId);
    expect(await value('switchboard_tool_invocation_duration_seconds_count', { result: 'ok' })).toBe(okBefore + 1);
    expect(await value('switchboard_tool_invocation_errors_total', { result: 'http_status' })).toBe(failedBefore + 1);
    // Errors are also timed; successes are never counted as errors.
    expect(await value('switchboard_tool_invocation_errors_total', { result: 'ok' })).toBe(0);
    const { samples } = await scrape();
    expect(samples.some((s) => s.name.startsWith('switchboard_tool') && 'tool' in s.labels)).toBe(false);
  });

  it('counts delivery attempts by result, and shows a failed one pending in the queue gauges', async () => {
    const hook = await receiver((request, response) => {
      response.writeHead(request.url.startsWith('/fail') ? 500 : 200);
      response.end();
    });
    const integrated = async (path: string) => {
      const { agent, creds } = await agentWithCreds(t, org);
      const created = await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
        headers: org.auth,
        body: { url: `${hook.url}${path}` },
      });
      expect(created.status).toBe(201);
      return creds;
    };
    const delivered = await value('switchboard_delivery_attempts_total', { result: 'delivered' });
    const failed = await value('switchboard_delivery_attempts_total', { result: 'webhook:http_status' });
    const pending = await value('switchboard_delivery_queue_pending');

    const good = await integrated('/hooks');
    const placed = await t.clickToCall({ token: good.apiToken, secret: good.apiSecret, body: { phone: nextPhone() } });
    expect(placed.status).toBe(200);
    await until('a delivered attempt', async () =>
      (await value('switchboard_delivery_attempts_total', { result: 'delivered' })) === delivered + 1
        ? true
        : undefined,
    );

    const bad = await integrated('/fail');
    const failing = await t.clickToCall({ token: bad.apiToken, secret: bad.apiSecret, body: { phone: nextPhone() } });
    expect(failing.status).toBe(200);
    await until('a failed attempt', async () =>
      (await value('switchboard_delivery_attempts_total', { result: 'webhook:http_status' })) === failed + 1
        ? true
        : undefined,
    );
    // Its retry is an hour away: pending, not due.
    await until('the failed delivery to be pending', async () =>
      (await value('switchboard_delivery_queue_pending')) === pending + 1 ? true : undefined,
    );
    expect(await value('switchboard_delivery_queue_due')).toBe(0);
    expect(await value('switchboard_delivery_queue_lag_seconds')).toBe(0);
  });

  it('shows due deliveries and their lag where no worker takes them (an api-only process)', async () => {
    const api = await startTestApp({ SWITCHBOARD_ROLE: 'api' });
    try {
      const owner = await api.signup();
      const hook = await receiver();
      const { agent, creds } = await agentWithCreds(api, owner);
      const created = await api.request('POST', `/v1/agents/${agent.id}/integrations`, {
        headers: owner.auth,
        body: { url: `${hook.url}/hooks` },
      });
      expect(created.status).toBe(201);
      expect(await value('switchboard_delivery_queue_due', {}, api)).toBe(0);
      const placed = await api.clickToCall({
        token: creds.apiToken,
        secret: creds.apiSecret,
        body: { phone: nextPhone() },
      });
      expect(placed.status).toBe(200);
      await api.waitForCall(owner, placed.body.callId);
      expect(await value('switchboard_delivery_queue_due', {}, api)).toBe(1);
      expect(await value('switchboard_delivery_queue_pending', {}, api)).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(await value('switchboard_delivery_queue_lag_seconds', {}, api)).toBeGreaterThanOrEqual(1);
      expect(hook.requests).toHaveLength(0);
    } finally {
      await api.close();
    }
  });

  it('counts failures to publish an agent to its provider', async () => {
    const before = await value('switchboard_provider_sync_failures_total', { provider: 'vapi' });
    const created = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'No credential', provider: 'vapi', fromNumber: '+14155550100' },
    });
    expect(created.status).toBe(201);
    await until('a counted sync failure', async () =>
      (await value('switchboard_provider_sync_failures_total', { provider: 'vapi' })) === before + 1 ? true : undefined,
    );
  });

  it('keeps one registry per app: another app in the same process starts from zero', async () => {
    const other = await startTestApp();
    try {
      expect(await value('switchboard_click_to_call_results_total', {}, other)).toBe(0);
      expect(await value('switchboard_click_to_call_results_total')).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });
});

describe('the delivery queue gauges', () => {
  it('read the queue once per scrape, and show NaN instead of hanging when the database does not answer', async () => {
    let reads = 0;
    const answering = createMetrics({
      deliveryQueue: async () => {
        reads++;
        return { due: 2, pending: 5, oldestDueAgeSeconds: 7.5 };
      },
    });
    const { samples } = parsePrometheus(await answering.text());
    expect(reads).toBe(1);
    const gauge = (name: string) => samples.find((s) => s.name === name)?.value;
    expect([
      gauge('switchboard_delivery_queue_due'),
      gauge('switchboard_delivery_queue_pending'),
      gauge('switchboard_delivery_queue_lag_seconds'),
    ]).toEqual([2, 5, 7.5]);

    const errors: unknown[] = [];
    const stuck = createMetrics({
      deliveryQueue: () => new Promise(() => {}),
      queueTimeoutMs: 50,
      onError: (error) => errors.push(error),
    });
    const started = Date.now();
    const parsed = parsePrometheus(await stuck.text());
    expect(Date.now() - started).toBeLessThan(1000);
    expect(parsed.samples.find((s) => s.name === 'switchboard_delivery_queue_lag_seconds')?.value).toBeNaN();
    expect(errors).toHaveLength(1);
  });
});
