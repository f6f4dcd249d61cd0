import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALL_RECORD_BUDGET } from '../src/calls/call-record-budget.js';
import { MAX_VARIABLE_VALUE } from '../src/click-to-call/request-body.js';
import { FILLED_TEXT_BUDGET } from '../src/lib/template.js';
import { MAX_INVOCATIONS_PER_CALL } from '../src/tools/tools.repository.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { startFakeVapi } from './helpers/fake-vapi.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';
import { until } from './helpers/wait.js';

// Issue 15 item 1 (docs/decisions/0027-bounded-call-records.md): one click-to-call whose scenario
// repeats a long variable 800 times in a turn built a 48 MB turn, 4–6 GB of RSS for ten of them, and
// an end-of-call report the database refused for ever. Every filled text, and every call record,
// now has a budget.

/** What GET /v1/calls/:id may weigh at most, as JSON (the sum of the budgets, rounded up; the decision). */
const CALL_RECORD_MAX_BYTES = 4 * 1024 * 1024;
const MARKER = /\.\.\.\[\d+ bytes cut: over the [\d.]+ (KiB|MiB|bytes) budget\]/;

let t: TestApp;
let org: Org;
let receiver: Receiver;
/** What the receiver answers a tool call with, set by each test. */
let toolAnswer = '{"ok":true}';
/** The server's error lines (pino JSON), so that a call that never ends says why. */
const serverErrors: string[] = [];

beforeAll(async () => {
  // Agents on Vapi publish at once (the refused end of call is reported by a Vapi webhook).
  t = await startTestApp({ SWITCHBOARD_PUBLISH_INTERVAL_MS: '100' }, undefined, {
    logger: { level: 'error', stream: { write: (line: string) => serverErrors.push(line) } },
  });
  org = await t.signup();
  receiver = await startReceiver((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(toolAnswer);
  });
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

async function createTool(name: string, body: Record<string, unknown> = {}): Promise<string> {
  const created = await t.request('POST', '/v1/tools', {
    headers: org.auth,
    body: { name, method: 'POST', url: `${receiver.url}/${name}`, ...body },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

async function placeCall(agentBody: Record<string, unknown>, variables: Record<string, string>) {
  const agent = await t.createAgent(org, { rateLimitPerMinute: null, ...agentBody });
  const creds = await t.credentials(org, agent.id);
  return t.clickToCall({
    token: creds.apiToken,
    secret: creds.apiSecret,
    body: { phone: nextPhone(), variables },
  });
}

/** The ended call as GET /v1/calls/:id answers it, and its size in bytes. */
async function endedCall(callId: string): Promise<{ call: any; bytes: number }> {
  await t.waitForCall(org, callId);
  const response = await fetch(`${t.url}/v1/calls/${callId}`, { headers: org.auth });
  const text = await response.text();
  return { call: JSON.parse(text), bytes: Buffer.byteLength(text) };
}

const bytesOf = (text: string) => Buffer.byteLength(text);

/**
 * Where `value` has a key every JSON body of the API is refused for (422, src/app.ts: a "__proto__",
 * or a "constructor" holding a "prototype"), as a path; undefined when it has none.
 */
function pollutingKey(value: unknown, path = '$'): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, entry] of Object.entries(value)) {
    const at = `${path}[${JSON.stringify(key)}]`;
    if (key === '__proto__') return at;
    if (key === 'constructor' && entry !== null && typeof entry === 'object' && Object.hasOwn(entry, 'prototype'))
      return at;
    const inner = pollutingKey(entry, at);
    if (inner) return inner;
  }
  return undefined;
}

describe('the attack of issue 15', () => {
  it('refuses a variable value over the maximum with ctc:009 naming it; the maximum itself is accepted', async () => {
    const scenario = { turns: [{ role: 'agent', text: '{{p}}'.repeat(800) }] };
    const refused = await placeCall({ simulator: scenario }, { name: 'Ada', p: 'x'.repeat(60_000) });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'ctc:009',
      details: [{ path: '$.variables.p', message: `values are at most ${MAX_VARIABLE_VALUE} characters` }],
    });
    const justOver = await placeCall({ simulator: scenario }, { p: 'x'.repeat(MAX_VARIABLE_VALUE + 1) });
    expect(justOver.body.code).toBe('ctc:009');
    const atMax = await placeCall({ simulator: scenario }, { p: 'x'.repeat(MAX_VARIABLE_VALUE) });
    expect(atMax.status).toBe(200);
  });

  it('cuts turns and the first message filled from a variable at the maximum, and the call ends within its budget', async () => {
    const p = `${'é'.repeat(MAX_VARIABLE_VALUE - 2)}😀`;
    const answer = await placeCall(
      {
        firstMessage: '{{p}}'.repeat(400),
        simulator: {
          turns: Array.from({ length: 100 }, (_, i) => ({ role: i % 2 ? 'user' : 'agent', text: '{{p}}'.repeat(800) })),
          outcome: { status: 'SOLD' },
          // Live: each turn is appended as it is spoken, until the transcript's budget is reached.
          delayMs: 400,
        },
      },
      { p },
    );
    expect(answer.status).toBe(200);
    const { call, bytes } = await endedCall(answer.body.callId);
    expect(call).toMatchObject({ status: 'ended', outcome: 'SOLD', endedReason: 'agent_hangup' });
    expect(bytes).toBeLessThanOrEqual(CALL_RECORD_MAX_BYTES);
    expect(bytesOf(JSON.stringify(call.transcript))).toBeLessThanOrEqual(CALL_RECORD_BUDGET.transcriptBytes);
    for (const turn of call.transcript) expect(bytesOf(turn.text)).toBeLessThanOrEqual(FILLED_TEXT_BUDGET + 200);
    // Each filled turn keeps its start and says what was cut; the transcript says it was cut too.
    expect(call.transcript[0].text.startsWith(p)).toBe(true);
    expect(call.transcript[0].text).toMatch(MARKER);
    expect(call.transcript.at(-1).text).toMatch(/later turns\)$/);
    expect(call.transcript.length).toBeLessThan(101);
  });

  it('cuts {{tool.x.y}} of a large tool answer, and the tool’s request and record stay within their budgets', async () => {
    // Under the 16 KiB of an answer the agent is given, so that it parses and `y` can be read.
    toolAnswer = JSON.stringify({ y: 'z'.repeat(15_000), n: 1 });
    const lookupId = await createTool('big_lookup');
    // A parameter and a header filled from the variable a hundred times over.
    const echoId = await createTool('echo', {
      headers: [{ key: 'X-Note', mode: 'variable', value: '{{p}}'.repeat(100) }],
      parameters: [
        { name: 'note', location: 'body', type: 'string', fillMode: 'variable', value: '{{p}}'.repeat(100) },
      ],
      variables: [{ name: 'p' }],
    });
    const answer = await placeCall(
      {
        toolIds: [lookupId, echoId],
        simulator: {
          turns: [
            { tool: 'big_lookup', args: { q: 'q'.repeat(20_000) } },
            { role: 'agent', text: '{{tool.big_lookup.y}}'.repeat(180) },
            { role: 'agent', text: '{{tool.big_lookup}}'.repeat(180) },
            { tool: 'echo' },
          ],
        },
      },
      { p: 'v'.repeat(MAX_VARIABLE_VALUE) },
    );
    expect(answer.status).toBe(200);
    const { call, bytes } = await endedCall(answer.body.callId);
    expect(call.outcome).toBe('COMPLETED');
    expect(bytes).toBeLessThanOrEqual(CALL_RECORD_MAX_BYTES);
    for (const turn of call.transcript) expect(bytesOf(turn.text)).toBeLessThanOrEqual(CALL_RECORD_BUDGET.turnBytes);
    expect(call.transcript[1].text).toMatch(MARKER);
    expect(call.transcript[2].text).toMatch(MARKER);

    // What the endpoint received: the filled parameter and header cut at their budgets, still sent.
    const sent = receiver.requests.at(-1);
    expect(sent?.url).toBe('/echo');
    const note = JSON.parse(sent?.body ?? '{}').note as string;
    expect(bytesOf(note)).toBeLessThanOrEqual(FILLED_TEXT_BUDGET);
    expect(note).toMatch(MARKER);
    expect(bytesOf(String(sent?.headers['x-note']))).toBeLessThanOrEqual(8192);

    // The records: arguments cut, the request's body cut, each within its share.
    expect(call.toolInvocations).toHaveLength(2);
    for (const invocation of call.toolInvocations) {
      expect(bytesOf(JSON.stringify(invocation))).toBeLessThanOrEqual(40 * 1024);
    }
    expect(JSON.stringify(call.toolInvocations[0].arguments)).toMatch(MARKER);
    expect(call.toolInvocations[1].request.body).toMatch(MARKER);
  });

  it(`records at most ${MAX_INVOCATIONS_PER_CALL} tool invocations per call and refuses the tool calls past them`, async () => {
    toolAnswer = '{"ok":true}';
    const pingId = await createTool('ping');
    const sentBefore = receiver.requests.length;
    const answer = await placeCall(
      {
        toolIds: [pingId],
        simulator: { turns: Array.from({ length: MAX_INVOCATIONS_PER_CALL + 10 }, () => ({ tool: 'ping' })) },
      },
      {},
    );
    const { call } = await endedCall(answer.body.callId);
    expect(call.toolInvocations).toHaveLength(MAX_INVOCATIONS_PER_CALL);
    expect(receiver.requests.length - sentBefore).toBe(MAX_INVOCATIONS_PER_CALL);
    expect(call.transcript.at(-1).text).toBe(
      `Error: This call has made ${MAX_INVOCATIONS_PER_CALL} tool calls, the most one call may make`,
    );
  });
});

describe('an end of call the database refuses', () => {
  it('ends that call as FAILED / record_failed and leaves the other calls ended with it as reported', async () => {
    const secret = 'vapi_hook_secret_for_budgets_1';
    const vapi = await startFakeVapi({ phoneNumbers: ['+14155550100'] });
    try {
      const credential = await t.request('POST', '/v1/provider-credentials', {
        headers: org.auth,
        body: { provider: 'vapi', name: 'Vapi', apiKey: vapi.apiKey, webhookSecret: secret, baseUrl: vapi.url },
      });
      const agent = await t.createAgent(org, {
        name: 'Vapi seller',
        provider: 'vapi',
        providerCredentialId: credential.body.id,
        fromNumber: '+14155550100',
        rateLimitPerMinute: null,
      });
      await until('the agent published', async () => {
        const a = (await t.request('GET', `/v1/agents/${agent.id}`, { headers: org.auth })).body;
        return a.providerSync.state === 'synced' ? a : undefined;
      });
      const creds = await t.credentials(org, agent.id);
      const start = async () =>
        (await t.clickToCall({ token: creds.apiToken, secret: creds.apiSecret, body: { phone: nextPhone() } })).body
          .callId as string;
      const [refusedId, goodId] = [await start(), await start()];
      const report = (callId: string, endedAt: string) => ({
        message: {
          type: 'end-of-call-report',
          endedReason: 'customer-ended-call',
          startedAt: '1970-01-01T00:00:00.000Z',
          endedAt,
          call: { id: `v-${callId}`, assistantOverrides: { metadata: { switchboardCallId: callId } } },
          artifact: { messages: [] },
          analysis: { structuredData: { status: 'SOLD' } },
        },
      });
      // A duration of 4.1 billion seconds: PostgreSQL refuses it for an integer column (22003), every time.
      const [refused, good] = await Promise.all([
        t.request('POST', '/providers/vapi/webhook', {
          headers: { 'x-vapi-secret': secret },
          body: report(refusedId, '2100-01-01T00:00:00.000Z'),
        }),
        t.request('POST', '/providers/vapi/webhook', {
          headers: { 'x-vapi-secret': secret },
          body: report(goodId, '1970-01-01T00:00:30.000Z'),
        }),
      ]);
      expect([refused.status, good.status]).toEqual([200, 200]);
      const callOf = async (id: string) => (await t.request('GET', `/v1/calls/${id}`, { headers: org.auth })).body;
      expect(await callOf(refusedId)).toMatchObject({
        status: 'ended',
        outcome: 'FAILED',
        endedReason: 'record_failed',
        error: expect.stringMatching(/^The call's end could not be recorded \(22003: .*out of range/),
      });
      expect(await callOf(goodId)).toMatchObject({ status: 'ended', outcome: 'SOLD', durationSeconds: 30 });
    } finally {
      await vapi.close();
    }
  });
});

describe('random scenarios, variables and tool answers', () => {
  const text = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom('😀', '\u0000', '\ud800', '"\\', 'é'),
  );
  // Variables PostgreSQL cannot store are refused (ctc:009): not what this property is about.
  const storable = (s: string) => s.replaceAll('\u0000', '').replace(/[\ud800-\udfff]/g, '');
  const variableValue = fc.oneof(
    text.map(storable),
    fc
      .tuple(text, fc.integer({ min: 1, max: MAX_VARIABLE_VALUE }))
      .map(([s, n]) => storable(s).repeat(n).slice(0, MAX_VARIABLE_VALUE)),
  );
  const placeholder = fc.constantFrom('{{v}}', '{{w}}', '{{tool.t.y}}', '{{tool.t}}', '{{missing}}', ' ', 'Hi ');
  const turnText = fc.array(placeholder, { maxLength: 800 }).map((parts) => parts.join('').slice(0, 4000));
  // fc.jsonValue makes objects with an own "__proto__" key now and then: the agent carrying them is
  // refused (422, as any body with one), which is not what this property is about. Seeds -981549691
  // (path 23) and -273044297 (path 1) failed so, on creating the agent, in about 1 run of the file in 10.
  const storableJson = (maxDepth: number) => fc.jsonValue({ maxDepth }).filter((v) => !pollutingKey(v));
  const turn = fc.oneof(
    fc.record({ role: fc.constantFrom('agent', 'user'), text: turnText }),
    fc.record({
      tool: fc.constant('t'),
      args: fc.dictionary(fc.string({ maxLength: 5 }), storableJson(2)),
    }),
  );
  const toolBody = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify({ y: v })),
    fc.tuple(text, fc.integer({ min: 1, max: 40_000 })).map(([s, n]) => JSON.stringify({ y: s.repeat(n) })),
    fc.tuple(text, fc.integer({ min: 1, max: 40_000 })).map(([s, n]) => s.repeat(n)),
  );
  const collected = fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(storableJson(2), variableValue));
  // The tool's answer keeps its "__proto__" keys: an endpoint's answer is not an API body.
  const scenario = fc.tuple(
    fc.array(turn, { maxLength: 30 }),
    fc.record({ v: variableValue, w: variableValue }),
    toolBody,
    collected,
    turnText,
  );

  it('generate no agent the API refuses for a "__proto__" key (as it did at two seeds)', async () => {
    const refused = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: '{"name":"Polluted","simulator":{"turns":[{"tool":"t","args":{"a":{"__proto__":1}}}]}}',
    });
    expect(refused.status).toBe(422);
    expect(refused.body.details).toEqual([
      { path: '$', message: 'The body contains a forbidden key (__proto__ or constructor.prototype)' },
    ]);
    for (const [seed, path] of [
      [-981549691, 23],
      [-273044297, 1],
    ] as const) {
      const [turns, , , collectedData] = fc.sample(scenario, { seed, numRuns: path + 1 })[path] ?? [];
      expect(pollutingKey({ turns, collectedData }), `seed ${seed}, path ${path}`).toBeUndefined();
    }
  });

  it(`never make a call record larger than ${CALL_RECORD_MAX_BYTES / 1024 / 1024} MiB, and the RSS after them stays bounded`, async () => {
    const toolId = await createTool('t', {
      parameters: [
        { name: 'note', location: 'body', type: 'string', fillMode: 'variable', value: '{{v}}{{w}}'.repeat(50) },
      ],
      headers: [{ key: 'X-V', mode: 'variable', value: '{{w}}{{w}}{{w}}' }],
      variables: [{ name: 'v' }, { name: 'w' }],
    });
    const rssBefore = process.memoryUsage().rss;
    let largest = 0;
    serverErrors.length = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async ([turns, variables, body, collectedData, firstMessage]) => {
        toolAnswer = body;
        const answer = await placeCall(
          { toolIds: [toolId], firstMessage, simulator: { turns, outcome: { collectedData } } },
          variables,
        );
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        const { call, bytes } = await endedCall(answer.body.callId).catch((error: Error) => {
          throw new Error(`${error.message}\nThe server's errors:\n${serverErrors.join('').slice(-8000)}`);
        });
        largest = Math.max(largest, bytes);
        expect(call.endedReason).toBe('agent_hangup');
        expect(bytes).toBeLessThanOrEqual(CALL_RECORD_MAX_BYTES);
        expect(bytesOf(JSON.stringify(call.transcript))).toBeLessThanOrEqual(CALL_RECORD_BUDGET.transcriptBytes);
        expect(bytesOf(JSON.stringify(call.collectedData))).toBeLessThanOrEqual(CALL_RECORD_BUDGET.collectedDataBytes);
        for (const turn of call.transcript) {
          expect(bytesOf(turn.text)).toBeLessThanOrEqual(CALL_RECORD_BUDGET.turnBytes + 200);
        }
      }),
      // A failure is reported as found, with its seed and the call's state, instead of being shrunk:
      // each shrinking step places a whole call (and may wait 15 s for it), so a failure once showed
      // in CI only as the test's timeout (likely a generated "__proto__" key, now filtered out).
      { numRuns: 40, endOnFailure: true },
    );
    // Measured: a few tens of MB over 40 runs on PGlite (the decision); 300 MB leaves room for a GC
    // that has not run yet, and is nowhere near the gigabytes one call of the attack cost.
    const growthMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
    console.log(`largest call record ${largest} bytes; RSS growth over the runs ${growthMb.toFixed(0)} MB`);
    expect(growthMb).toBeLessThan(300);
  }, 180_000);
});
