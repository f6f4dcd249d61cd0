import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DETAILS, MAX_MESSAGE_LENGTH, plainMessage } from '../src/errors.js';
import { PATTERN_SENTENCES } from '../src/lib/schema.js';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';

/** Issue 18 §3: errors in plain sentences, every problem of a body at once, and no huge answers. */

let t: TestApp;
let org: Org;
let other: Org;

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
  other = await t.signup();
});
afterAll(async () => {
  await t.close();
});

let count = 0;
const unique = (prefix: string) => `${prefix}_${++count}`;

/** The 422's problems as `{path: message}`, after checking it is one. */
function problems(response: { status: number; body: any }): Record<string, string> {
  expect(response.status, JSON.stringify(response.body)).toBe(422);
  expect(response.body.code).toBe('api:validation');
  return Object.fromEntries(
    (response.body.details as { path: string; message: string }[]).map((d) => [d.path, d.message]),
  );
}

const validatorWords = /must match pattern|must NOT have|must be (string|number|integer|object|array|boolean|>=|<=)/;

describe('messages in plain sentences', () => {
  it('says what a tool name takes, not its pattern', async () => {
    const response = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: { name: 'create lead!', method: 'POST', url: 'https://example.com/leads' },
    });
    expect(problems(response)).toEqual({ '$.name': 'Use letters, digits, _ or - (at most 64)' });
  });

  it('says how long a password must be, not "must NOT have fewer than"', async () => {
    const response = await t.request('POST', '/v1/signup', {
      body: { organization: 'Acme', email: `${unique('short')}@example.com`, password: 'abc' },
    });
    expect(problems(response)).toEqual({ '$.password': 'At least 10 characters' });
  });

  it('words lengths, numbers, types, list sizes and unions', async () => {
    const response = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: {
        name: 'x'.repeat(101),
        maxCallDurationSeconds: 0,
        rateLimitPerMinute: 2.5,
        enabled: 'yes',
        outcomes: [],
        prompt: 7,
        language: 5,
        toolIds: ['tool_a', 'tool_a'],
      },
    });
    const found = problems(response);
    expect(found).toEqual({
      '$.name': 'At most 100 characters',
      '$.maxCallDurationSeconds': 'At least 1',
      '$.rateLimitPerMinute': 'Must be a whole number or null',
      '$.enabled': 'Must be true or false',
      '$.outcomes': 'List at least one',
      '$.prompt': 'Must be text',
      '$.language': 'Must be text or null',
      '$.toolIds': 'Each item must be different: [0] and [1] are the same',
    });
    for (const message of Object.values(found)) expect(message).not.toMatch(validatorWords);
  });

  it('a body that is not an object is said as such', async () => {
    const response = await t.request('POST', '/v1/tools', { headers: org.auth, body: [1, 2] });
    expect(problems(response)).toEqual({ $: 'The body must be a JSON object' });
  });

  it('has a sentence for every pattern the API document names', async () => {
    const document = (await t.request('GET', '/openapi.json')).body;
    const patterns = new Set<string>();
    const walk = (node: unknown) => {
      if (Array.isArray(node)) for (const item of node) walk(item);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'pattern' && typeof value === 'string') patterns.add(value);
          else walk(value);
        }
      }
    };
    walk(document);
    expect(patterns.size).toBeGreaterThan(5);
    expect([...patterns].filter((pattern) => !(pattern in PATTERN_SENTENCES))).toEqual([]);
  });

  it('translates each keyword without the validator words', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['minLength', { limit: 1 }, 'Must not be empty'],
      ['minLength', { limit: 8 }, 'At least 8 characters'],
      ['maxLength', { limit: 1 }, 'At most 1 character'],
      ['maximum', { limit: 2, comparison: '<=' }, 'At most 2'],
      ['exclusiveMinimum', { limit: 0, comparison: '>' }, 'More than 0'],
      ['maxItems', { limit: 100 }, 'List at most 100'],
      ['format', { format: 'date-time' }, 'Must be a date and time in ISO 8601, e.g. 2026-01-31T09:00:00Z'],
      ['pattern', { pattern: '^[A-Z][A-Z0-9_]{0,63}$' }, PATTERN_SENTENCES['^[A-Z][A-Z0-9_]{0,63}$'] as string],
      ['pattern', { pattern: '^never-seen$' }, 'Has characters or a form this field does not take'],
      ['enum', { allowedValues: ['GET', 'POST'] }, 'must be one of "GET", "POST"'],
      ['required', { missingProperty: 'url' }, 'is required'],
    ];
    for (const [keyword, params, sentence] of cases) {
      expect(plainMessage({ instancePath: '/x', keyword, params }), keyword).toBe(sentence);
    }
  });
});

describe('every problem at once', () => {
  it('a tool with a bad name AND a bad URL answers both in one 422, and saves nothing', async () => {
    const before = (await t.request('GET', '/v1/tools?limit=100', { headers: org.auth })).body.data.length;
    const response = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: { name: 'bad name', method: 'POST', url: 'ftp://example.com/leads' },
    });
    expect(problems(response)).toEqual({
      '$.name': 'Use letters, digits, _ or - (at most 64)',
      '$.url': 'must use http or https',
    });
    const after = (await t.request('GET', '/v1/tools?limit=100', { headers: org.auth })).body.data.length;
    expect(after).toBe(before);
  });

  it('the preview and a change answer both too; the change leaves the tool as it was', async () => {
    const preview = await t.request('POST', '/v1/tools/preview', {
      headers: org.auth,
      body: { name: 'bad name', method: 'POST', url: 'not a url' },
    });
    expect(Object.keys(problems(preview)).sort()).toEqual(['$.name', '$.url']);

    const created = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: { name: unique('tool'), method: 'POST', url: 'https://example.com/a' },
    });
    expect(created.status).toBe(201);
    const change = await t.request('PATCH', `/v1/tools/${created.body.id}`, {
      headers: org.auth,
      body: { name: 'bad name', url: 'https://user:pw@example.com/b', timeoutMs: 10 },
    });
    expect(problems(change)).toEqual({
      '$.name': 'Use letters, digits, _ or - (at most 64)',
      '$.url': 'must not contain credentials; send them in a header',
      '$.timeoutMs': 'At least 1000',
    });
    const read = await t.request('GET', `/v1/tools/${created.body.id}`, { headers: org.auth });
    expect(read.body).toMatchObject({ name: created.body.name, url: 'https://example.com/a', timeoutMs: 10_000 });
  });

  it("judges nothing against a refused field's stand-in: a refused parameter list leaves the URL's {segment} alone", async () => {
    const response = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: {
        name: unique('tool'),
        method: 'POST',
        url: 'https://example.com/orders/{order_id}#frag',
        parameters: [{ name: 'order id', location: 'path', type: 'string', fillMode: 'ai' }],
        variables: [{ name: 'customer', defaultValue: 'x' }],
        headers: [{ key: 'X-Customer', mode: 'variable', value: '{{customer}} {{unknown}}' }],
      },
    });
    expect(problems(response)).toEqual({
      '$.parameters[0].name': 'Use letters, digits, _ or - (at most 64)',
      '$.url': 'must not contain a fragment (#…)',
      '$.headers[0].value': '{{unknown}} names no declared variable; declare it under "variables"',
    });
  });

  it("another organization's tool answers 404 even with a bad body", async () => {
    const created = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: { name: unique('tool'), method: 'POST', url: 'https://example.com/a' },
    });
    const change = await t.request('PATCH', `/v1/tools/${created.body.id}`, {
      headers: other.auth,
      body: { name: 'bad name' },
    });
    expect(change.status).toBe(404);
  });

  it('an agent with a bad From number and another bad field answers both', async () => {
    const response = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: unique('agent'), fromNumber: '+1555', maxCallDurationSeconds: 0 },
    });
    expect(problems(response)).toEqual({
      '$.fromNumber': 'must be a valid phone number in E.164 format, e.g. +14155550100',
      '$.maxCallDurationSeconds': 'At least 1',
    });

    const agent = await t.createAgent(org);
    const change = await t.request('PATCH', `/v1/agents/${agent.id}`, {
      headers: org.auth,
      body: { fromNumber: '12345', outcomes: ['sold'], allowedCountries: ['us'] },
    });
    expect(problems(change)).toEqual({
      '$.fromNumber': 'must be a valid phone number in E.164 format, e.g. +14155550100',
      '$.outcomes[0]': 'Use capitals, digits and _, starting with a capital (at most 64), e.g. SOLD',
      '$.allowedCountries[0]': 'must be in capitals: "US"',
    });
    const read = await t.request('GET', `/v1/agents/${agent.id}`, { headers: org.auth });
    expect(read.body.fromNumber).toBe(agent.fromNumber);
    expect(read.body.outcomes).toEqual(agent.outcomes);
  });

  it('a scenario outcome is not judged against outcomes the schema refused', async () => {
    const response = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: {
        name: unique('agent'),
        outcomes: ['SOLD', 'not valid'],
        simulator: { outcome: { status: 'SOLD' } },
      },
    });
    expect(problems(response)).toEqual({
      '$.outcomes[1]': 'Use capitals, digits and _, starting with a capital (at most 64), e.g. SOLD',
    });
  });
});

describe('bounded answers', () => {
  it(`a body with 10,000 bad items answers at most ${MAX_DETAILS} problems, saying how many there were`, async () => {
    const response = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: {
        name: unique('tool'),
        method: 'POST',
        url: 'https://example.com/a',
        variables: Array.from({ length: 10_000 }, (_, i) => ({ name: `${i} bad` })),
      },
    });
    expect(response.status).toBe(422);
    expect(response.body.details.length).toBe(MAX_DETAILS);
    expect(response.body.details[0]).toEqual({ path: '$.variables', message: 'List at most 100' });
    expect(response.body.message).toBe(`The tool definition is not valid (${MAX_DETAILS} of 10001 problems listed)`);
    expect(JSON.stringify(response.body).length).toBeLessThan(10_000);
  });

  it(`cuts a message at ${MAX_MESSAGE_LENGTH} characters`, async () => {
    const choices = Array.from({ length: 20 }, (_, i) => `choice_number_${i}_${'x'.repeat(20)}`);
    const response = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: {
        name: unique('agent'),
        collect: [{ name: 'plan', type: 'enum', choices }],
        simulator: { outcome: { status: 'SOLD', collectedData: { plan: 'none' } } },
      },
    });
    const message = problems(response)['$.simulator.outcome.collectedData.plan'] as string;
    expect(message.length).toBe(MAX_MESSAGE_LENGTH);
    expect(message).toMatch(/^must be one of "choice_number_0_x+", .*…$/);
  });

  it('says a problem repeated at one path once', async () => {
    const response = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: {
        name: unique('tool'),
        method: 'POST',
        url: 'https://example.com/a',
        headers: [{ key: 'X-A', mode: 'variable', value: '{{nope}} {{nope}}' }],
      },
    });
    expect(response.body.details).toEqual([
      { path: '$.headers[0].value', message: '{{nope}} names no declared variable; declare it under "variables"' },
    ]);
  });
});
