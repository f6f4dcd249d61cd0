import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

let t: TestApp;
let org: Org;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

let toolCount = 0;
const uniqueName = (prefix = 'tool') => `${prefix}_${++toolCount}`;

async function createTool(body: Record<string, unknown>) {
  return t.request('POST', '/v1/tools', {
    headers: org.auth,
    body: { name: uniqueName(), method: 'POST', url: `${receiver.url}/hook`, ...body },
  });
}

async function createdTool(body: Record<string, unknown>) {
  const response = await createTool(body);
  if (response.status !== 201) throw new Error(`create tool: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

async function runTest(toolId: string, body: Record<string, unknown> = {}) {
  const before = receiver.requests.length;
  const response = await t.request('POST', `/v1/tools/${toolId}/test`, { headers: org.auth, body });
  expect(response.status).toBe(200);
  return { ...response.body, received: receiver.requests.slice(before) };
}

describe('tool CRUD', () => {
  it('creates a tool with every field and reads it back with its AI schema', async () => {
    const tool = await createdTool({
      name: 'create_lead',
      description: 'Creates a lead once the caller gave name and email. Returns the lead id.',
      method: 'POST',
      url: `${receiver.url}/leads/{region}`,
      headers: [
        { key: 'X-Source', mode: 'fixed', value: 'switchboard' },
        { key: 'X-Customer', mode: 'variable', value: '{{customer_id}}' },
      ],
      parameters: [
        { name: 'region', location: 'path', type: 'string', fillMode: 'fixed', value: 'eu' },
        { name: 'email', location: 'body', type: 'string', fillMode: 'ai', description: 'Email', required: true },
        { name: 'plan', location: 'body', type: 'string', fillMode: 'ai', allowedValues: ['basic', 'pro'] },
      ],
      variables: [{ name: 'customer_id', defaultValue: 'anonymous' }],
      timeoutMs: 5000,
    });
    expect(tool).toMatchObject({
      id: expect.stringMatching(/^tool_/),
      name: 'create_lead',
      method: 'POST',
      timeoutMs: 5000,
      headers: [
        { key: 'X-Source', mode: 'fixed', value: 'switchboard', secret: false },
        { key: 'X-Customer', mode: 'variable', value: '{{customer_id}}', secret: false },
      ],
      variables: [{ name: 'customer_id', defaultValue: 'anonymous' }],
      aiSchema: {
        type: 'object',
        properties: {
          email: { type: 'string', description: 'Email' },
          plan: { type: 'string', enum: ['basic', 'pro'] },
        },
        required: ['email'],
        additionalProperties: false,
      },
    });
    const read = await t.request('GET', `/v1/tools/${tool.id}`, { headers: org.auth });
    expect(read.body).toEqual(tool);
    const list = await t.request('GET', '/v1/tools', { headers: org.auth });
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain(tool.id);
  });

  it('applies defaults: description "", no headers, parameters or variables, timeout 10 s', async () => {
    const tool = await createdTool({});
    expect(tool).toMatchObject({ description: '', headers: [], parameters: [], variables: [], timeoutMs: 10_000 });
    expect(tool.aiSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('refuses a second tool with the same name in the organization (409), but not in another one', async () => {
    await createdTool({ name: 'lookup_order' });
    const again = await createTool({ name: 'lookup_order' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'api:conflict', details: [{ path: '$.name' }] });
    const other = await t.signup();
    const elsewhere = await t.request('POST', '/v1/tools', {
      headers: other.auth,
      body: { name: 'lookup_order', method: 'GET', url: receiver.url },
    });
    expect(elsewhere.status).toBe(201);
  });

  it('updates fields, keeps the rest, and refuses a rename onto a taken name', async () => {
    const tool = await createdTool({ description: 'before' });
    const patched = await t.request('PATCH', `/v1/tools/${tool.id}`, {
      headers: org.auth,
      body: { description: 'after', timeoutMs: 2000 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ description: 'after', timeoutMs: 2000, name: tool.name, url: tool.url });
    const taken = await createdTool({});
    const rename = await t.request('PATCH', `/v1/tools/${tool.id}`, { headers: org.auth, body: { name: taken.name } });
    expect(rename.status).toBe(409);
  });

  it('tests a tool sent with no body at all (no arguments, no variables)', async () => {
    const tool = await createdTool({ method: 'GET' });
    const before = receiver.requests.length;
    const response = await fetch(`${t.url}/v1/tools/${tool.id}/test`, { method: 'POST', headers: org.auth });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { error: unknown }).error).toBeNull();
    expect(receiver.requests.length).toBe(before + 1);
  });

  it('an empty JSON body where one is needed must be an object, not a parse error', async () => {
    const response = await t.request('POST', '/v1/tools', {
      headers: { ...org.auth, 'content-type': 'application/json' },
      body: '',
    });
    expect(response.status).toBe(422);
    expect(response.body.details).toEqual([{ path: '$', message: 'The body must be a JSON object' }]);
  });

  it('deletes a tool (204, then 404)', async () => {
    const tool = await createdTool({});
    expect((await t.request('DELETE', `/v1/tools/${tool.id}`, { headers: org.auth })).status).toBe(204);
    expect((await t.request('GET', `/v1/tools/${tool.id}`, { headers: org.auth })).status).toBe(404);
    expect((await t.request('POST', `/v1/tools/${tool.id}/test`, { headers: org.auth, body: {} })).status).toBe(404);
  });
});

describe('refused definitions (422, a JSON path per problem, nothing written)', () => {
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    [
      'a GET with body parameters',
      { method: 'GET', parameters: [{ name: 'q', location: 'body', type: 'string', fillMode: 'ai' }] },
      '$.parameters[0].location',
      /GET/,
    ],
    [
      'a path parameter with no {name} segment in the URL',
      { parameters: [{ name: 'id', location: 'path', type: 'string', fillMode: 'ai' }] },
      '$.parameters[0].name',
      /\{id\}/,
    ],
    ['a {segment} with no path parameter', { url: 'http://127.0.0.1:9/orders/{id}' }, '$.url', /\{id\}/],
    [
      'a Fixed value that cannot convert to its type',
      { parameters: [{ name: 'n', location: 'body', type: 'integer', fillMode: 'fixed', value: 'forty-two' }] },
      '$.parameters[0].value',
      /integer/,
    ],
    [
      'a Fixed JSON value of the wrong type',
      { parameters: [{ name: 'o', location: 'body', type: 'object', fillMode: 'fixed', value: '[1,2]' }] },
      '$.parameters[0].value',
      /object/,
    ],
    [
      'an allowed value of the wrong type',
      {
        parameters: [{ name: 'n', location: 'body', type: 'integer', fillMode: 'ai', allowedValues: [1, 'two', 3] }],
      },
      '$.parameters[0].allowedValues[1]',
      /integer/,
    ],
    [
      'a {{var}} in a header that names no declared variable',
      { headers: [{ key: 'X-Id', mode: 'variable', value: '{{customer}}' }] },
      '$.headers[0].value',
      /customer/,
    ],
    [
      'a {{var}} in a parameter value that names no declared variable',
      {
        variables: [{ name: 'known' }],
        parameters: [{ name: 'v', location: 'body', type: 'string', fillMode: 'variable', value: '{{unknown}}' }],
      },
      '$.parameters[0].value',
      /unknown/,
    ],
    [
      'a {{var}} in a nested object field that names no declared variable',
      {
        parameters: [
          {
            name: 'customer',
            location: 'body',
            type: 'object',
            fillMode: 'ai',
            fields: [{ name: 'ref', type: 'string', fillMode: 'variable', value: '{{ref}}' }],
          },
        ],
      },
      '$.parameters[0].fields[0].value',
      /ref/,
    ],
    ['a name with a space', { name: 'create lead' }, '$.name', /^Use letters, digits, _ or - \(at most 64\)$/],
    ['a name over 64 characters', { name: 'x'.repeat(65) }, '$.name', /^Use letters, digits, _ or - \(at most 64\)$/],
    ['a description over 1,200 characters', { description: 'd'.repeat(1201) }, '$.description', /1200/],
    ['an unknown method', { method: 'TRACE' }, '$.method', /GET/],
    ['a timeout under 1 s', { timeoutMs: 999 }, '$.timeoutMs', /1000/],
    ['a URL that is not http(s)', { url: 'ftp://example.com/x' }, '$.url', /http/],
    ['credentials in the URL', { url: 'https://user:pw@example.com/x' }, '$.url', /credentials/],
    [
      'an array without an element type',
      { parameters: [{ name: 'tags', location: 'body', type: 'array', fillMode: 'ai' }] },
      '$.parameters[0].items',
      /element type/,
    ],
    [
      'an object in a query string',
      { parameters: [{ name: 'o', location: 'query', type: 'object', fillMode: 'ai' }] },
      '$.parameters[0].type',
      /query/,
    ],
    [
      'a Variable value that references nothing',
      { parameters: [{ name: 'v', location: 'body', type: 'string', fillMode: 'variable', value: 'plain' }] },
      '$.parameters[0].value',
      /reference/,
    ],
    [
      'a header the HTTP client owns',
      { headers: [{ key: 'Host', mode: 'fixed', value: 'example.com' }] },
      '$.headers[0].key',
      /client/,
    ],
    [
      'an AI-filled field inside a Fixed object',
      {
        parameters: [
          {
            name: 'o',
            location: 'body',
            type: 'object',
            fillMode: 'fixed',
            value: '{}',
            fields: [{ name: 'x', type: 'string', fillMode: 'ai' }],
          },
        ],
      },
      '$.parameters[0].fields[0].fillMode',
      /AI-filled/,
    ],
    [
      'a parameter defined twice',
      {
        parameters: [
          { name: 'a', location: 'body', type: 'string', fillMode: 'ai' },
          { name: 'a', location: 'query', type: 'string', fillMode: 'ai' },
        ],
      },
      '$.parameters[1].name',
      /twice/,
    ],
  ];

  it.each(cases)('refuses %s', async (_label, body, path, message) => {
    const before = await t.request('GET', '/v1/tools?limit=100', { headers: org.auth });
    const response = await createTool(body);
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('api:validation');
    const problem = response.body.details.find((d: { path: string }) => d.path === path);
    expect(problem, JSON.stringify(response.body.details)).toBeDefined();
    expect(problem.message).toMatch(message);
    const after = await t.request('GET', '/v1/tools?limit=100', { headers: org.auth });
    expect(after.body.data.length).toBe(before.body.data.length);
  });

  it('validates nested fields at their own paths, and refuses nesting deeper than 5 levels', async () => {
    const nest = (depth: number, leaf: Record<string, unknown>): Record<string, unknown> =>
      depth === 0 ? leaf : { name: `o${depth}`, type: 'object', fillMode: 'ai', fields: [nest(depth - 1, leaf)] };
    const wrongType = await createTool({
      parameters: [{ ...nest(3, { name: 'x', type: 'text', fillMode: 'ai' }), location: 'body' }],
    });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.details[0].path).toBe('$.parameters[0].fields[0].fields[0].fields[0].type');
    const ok = await createTool({
      parameters: [{ ...nest(5, { name: 'x', type: 'string', fillMode: 'ai' }), location: 'body' }],
    });
    expect(ok.status).toBe(201);
    const deep = await createTool({
      parameters: [{ ...nest(6, { name: 'x', type: 'string', fillMode: 'ai' }), location: 'body' }],
    });
    expect(deep.status).toBe(422);
    expect(deep.body.details).toEqual([
      {
        path: '$.parameters[0].fields[0].fields[0].fields[0].fields[0].fields[0]',
        message: expect.stringMatching(/5 levels/),
      },
    ]);
  });

  it('reports every problem of one definition at once', async () => {
    const response = await createTool({
      method: 'GET',
      url: 'http://127.0.0.1:9/x/{missing}',
      parameters: [
        { name: 'b', location: 'body', type: 'string', fillMode: 'ai' },
        { name: 'n', location: 'query', type: 'integer', fillMode: 'fixed', value: 'x' },
      ],
    });
    expect(response.status).toBe(422);
    expect(response.body.details.map((d: { path: string }) => d.path).sort()).toEqual(
      ['$.parameters[0].location', '$.parameters[1].value', '$.url'].sort(),
    );
  });

  it('refuses an invalid PATCH and leaves the tool as it was', async () => {
    const tool = await createdTool({ method: 'POST' });
    const response = await t.request('PATCH', `/v1/tools/${tool.id}`, {
      headers: org.auth,
      body: { method: 'GET', parameters: [{ name: 'b', location: 'body', type: 'string', fillMode: 'ai' }] },
    });
    expect(response.status).toBe(422);
    expect((await t.request('GET', `/v1/tools/${tool.id}`, { headers: org.auth })).body).toEqual(tool);
  });
});

describe('aiSchema', () => {
  it('exposes AI-filled parameters only, with nested properties and items', async () => {
    const tool = await createdTool({
      variables: [{ name: 'account' }],
      parameters: [
        { name: 'account', location: 'body', type: 'string', fillMode: 'variable', value: '{{account}}' },
        { name: 'source', location: 'body', type: 'string', fillMode: 'fixed', value: 'phone' },
        { name: 'count', location: 'query', type: 'integer', fillMode: 'ai', required: true, description: 'How many' },
        {
          name: 'customer',
          location: 'body',
          type: 'object',
          fillMode: 'ai',
          required: true,
          fields: [
            { name: 'name', type: 'string', fillMode: 'ai', required: true },
            { name: 'vip', type: 'boolean', fillMode: 'ai' },
            { name: 'channel', type: 'string', fillMode: 'fixed', value: 'voice' },
          ],
        },
        {
          name: 'items',
          location: 'body',
          type: 'array',
          fillMode: 'ai',
          items: {
            type: 'object',
            fields: [
              { name: 'sku', type: 'string', fillMode: 'ai', required: true, allowedValues: ['A1', 'B2'] },
              { name: 'qty', type: 'integer', fillMode: 'ai' },
              { name: 'warehouse', type: 'string', fillMode: 'variable', value: '{{account}}' },
            ],
          },
        },
        { name: 'tags', location: 'query', type: 'array', fillMode: 'ai', items: { type: 'string' } },
      ],
    });
    expect(tool.aiSchema).toEqual({
      type: 'object',
      properties: {
        count: { type: 'integer', description: 'How many' },
        customer: {
          type: 'object',
          properties: { name: { type: 'string' }, vip: { type: 'boolean' } },
          required: ['name'],
          additionalProperties: false,
        },
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { sku: { type: 'string', enum: ['A1', 'B2'] }, qty: { type: 'integer' } },
            required: ['sku'],
            additionalProperties: false,
          },
        },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['count', 'customer'],
      additionalProperties: false,
    });
    expect(JSON.stringify(tool.aiSchema)).not.toMatch(/account|source|channel|warehouse|phone|voice/);
  });
});

describe('POST /v1/tools/preview (the live aiSchema of the editor)', () => {
  const preview = (body: unknown, headers: Record<string, string> = org.auth) =>
    t.request('POST', '/v1/tools/preview', { headers, body });
  /** Every tool of the organization, page after page. */
  const storedTools = async () => {
    let count = 0;
    let cursor: string | null = null;
    do {
      const page = await t.request('GET', `/v1/tools?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: org.auth,
      });
      count += page.body.data.length;
      cursor = page.body.nextCursor;
    } while (cursor);
    return count;
  };

  it('answers the schema create would compile, nested objects, arrays and enums included, and writes nothing', async () => {
    const before = await storedTools();
    const definition = {
      name: uniqueName('preview'),
      method: 'POST',
      url: `${receiver.url}/orders`,
      headers: [{ key: 'X-Account', mode: 'variable', value: '{{account}}' }],
      variables: [{ name: 'account', defaultValue: 'acme' }],
      parameters: [
        {
          name: 'customer',
          location: 'body',
          type: 'object',
          fillMode: 'ai',
          required: true,
          fields: [
            { name: 'tier', type: 'string', fillMode: 'ai', required: true, allowedValues: ['gold', 'silver'] },
            { name: 'account', type: 'string', fillMode: 'variable', value: '{{account}}' },
          ],
        },
        {
          name: 'items',
          location: 'body',
          type: 'array',
          fillMode: 'ai',
          items: { type: 'object', fields: [{ name: 'qty', type: 'integer', fillMode: 'ai' }] },
        },
        {
          name: 'sizes',
          location: 'query',
          type: 'array',
          fillMode: 'ai',
          items: { type: 'string', allowedValues: ['S', 'M'] },
        },
      ],
    };
    const response = await preview(definition);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      aiSchema: {
        type: 'object',
        properties: {
          customer: {
            type: 'object',
            properties: { tier: { type: 'string', enum: ['gold', 'silver'] } },
            required: ['tier'],
            additionalProperties: false,
          },
          items: {
            type: 'array',
            items: { type: 'object', properties: { qty: { type: 'integer' } }, additionalProperties: false },
          },
          sizes: { type: 'array', items: { type: 'string', enum: ['S', 'M'] } },
        },
        required: ['customer'],
        additionalProperties: false,
      },
    });
    // The same definition saved has the same schema: the preview is not a second compiler.
    expect((await createdTool(definition)).aiSchema).toEqual(response.body.aiSchema);
    expect(await storedTools()).toBe(before + 1);
    // A name already taken is not the preview's business (only saving can say it).
    expect((await preview(definition)).status).toBe(200);
    expect(await storedTools()).toBe(before + 1);
  });

  it('refuses what create refuses, each problem at its JSON path, and writes nothing', async () => {
    const before = await storedTools();
    const response = await preview({
      name: 'bad name',
      description: 'x'.repeat(1201),
      method: 'GET',
      url: `${receiver.url}/x`,
      parameters: [{ name: 'b', location: 'body', type: 'string', fillMode: 'ai' }],
    });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('api:validation');
    // The schema's problems and the tool's own rules (a GET with a body parameter) in one answer.
    expect(response.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
      '$.description',
      '$.name',
      '$.parameters[0].location',
    ]);
    const rules = await preview({
      name: uniqueName('preview'),
      method: 'GET',
      url: `${receiver.url}/x`,
      headers: [{ key: 'Host', mode: 'fixed', value: 'evil.example.com' }],
      parameters: [
        { name: 'b', location: 'body', type: 'string', fillMode: 'ai' },
        {
          name: 'o',
          location: 'query',
          type: 'string',
          fillMode: 'ai',
          allowedValues: ['a'],
          fields: [{ name: 'f', type: 'integer', fillMode: 'ai', allowedValues: ['nope'] }],
        },
      ],
    });
    expect(rules.status).toBe(422);
    expect(rules.body.details.map((d: { path: string }) => d.path).sort()).toEqual(
      [
        '$.headers[0].key',
        '$.parameters[0].location',
        '$.parameters[1].fields',
        '$.parameters[1].fields[0].allowedValues[0]',
      ].sort(),
    );
    expect(await storedTools()).toBe(before);
  });

  it('accepts the mask an editor of a saved tool read back for a secret header', async () => {
    const response = await preview({
      name: uniqueName('preview'),
      method: 'POST',
      url: `${receiver.url}/x`,
      headers: [{ key: 'Authorization', mode: 'fixed', value: '••••••' }],
    });
    expect(response.status).toBe(200);
  });

  it('needs a signed-in organization (401)', async () => {
    const response = await preview({ name: 'anonymous', method: 'GET', url: `${receiver.url}/x` }, {});
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('api:unauthorized');
  });
});

describe('the request a tool sends', () => {
  const values: Record<string, { ai: unknown; fixed: string; expected: unknown; text: string }> = {
    string: { ai: 'Ada Lovelace', fixed: 'Ada Lovelace', expected: 'Ada Lovelace', text: 'Ada Lovelace' },
    number: { ai: 12.5, fixed: '12.5', expected: 12.5, text: '12.5' },
    integer: { ai: 42, fixed: '42', expected: 42, text: '42' },
    boolean: { ai: true, fixed: 'true', expected: true, text: 'true' },
    object: { ai: { a: 1 }, fixed: '{"a":1}', expected: { a: 1 }, text: '' },
    array: { ai: ['x', 'y'], fixed: '["x","y"]', expected: ['x', 'y'], text: '' },
  };
  const cases: [string, string, string][] = [];
  for (const location of ['body', 'query', 'path'])
    for (const type of Object.keys(values))
      for (const fillMode of ['ai', 'variable', 'fixed']) {
        if (location === 'path' && (type === 'object' || type === 'array')) continue;
        if (location === 'query' && type === 'object') continue;
        cases.push([location, type, fillMode]);
      }

  it.each(cases)('%s × %s × %s', async (location, type, fillMode) => {
    const v = values[type]!;
    const parameter: Record<string, unknown> = { name: 'p', location, type, fillMode };
    if (type === 'array') parameter.items = { type: 'string' };
    if (fillMode === 'fixed') parameter.value = v.fixed;
    if (fillMode === 'variable') parameter.value = '{{source}}';
    const tool = await createdTool({
      method: location === 'body' ? 'POST' : 'GET',
      url: location === 'path' ? `${receiver.url}/items/{p}` : `${receiver.url}/items`,
      parameters: [parameter],
      variables: [{ name: 'source' }],
    });
    const run = await runTest(tool.id, {
      args: fillMode === 'ai' ? { p: v.ai } : {},
      variables: fillMode === 'variable' ? { source: v.fixed } : {},
    });
    expect(run.error).toBeNull();
    expect(run.received).toHaveLength(1);
    const received = run.received[0]!;
    const url = new URL(received.url, 'http://x');
    if (location === 'body') {
      expect(received.headers['content-type']).toBe('application/json');
      expect(JSON.parse(received.body)).toEqual({ p: v.expected });
    } else if (location === 'query') {
      expect(url.searchParams.getAll('p')).toEqual(type === 'array' ? ['x', 'y'] : [v.text]);
      expect(received.body).toBe('');
    } else {
      expect(url.pathname).toBe(`/items/${encodeURIComponent(v.text)}`);
    }
    expect(run.request).toMatchObject({ method: location === 'body' ? 'POST' : 'GET' });
  });

  it('percent-encodes path segments and appends query parameters to an existing query', async () => {
    const tool = await createdTool({
      method: 'GET',
      url: `${receiver.url}/orders/{id}?v=2`,
      parameters: [
        { name: 'id', location: 'path', type: 'string', fillMode: 'ai' },
        { name: 'q', location: 'query', type: 'string', fillMode: 'ai' },
      ],
    });
    const run = await runTest(tool.id, { args: { id: 'a/b c?#', q: 'x&y=z' } });
    expect(run.received[0].url).toBe('/orders/a%2Fb%20c%3F%23?v=2&q=x%26y%3Dz');
  });

  it('builds nested objects inside arrays, filling Variable and Fixed fields in every element', async () => {
    const tool = await createdTool({
      variables: [{ name: 'store' }],
      parameters: [
        {
          name: 'order',
          location: 'body',
          type: 'object',
          fillMode: 'ai',
          fields: [
            { name: 'customer', type: 'string', fillMode: 'ai', required: true },
            { name: 'store', type: 'string', fillMode: 'variable', value: '{{store}}' },
            {
              name: 'lines',
              type: 'array',
              fillMode: 'ai',
              items: {
                type: 'object',
                fields: [
                  { name: 'sku', type: 'string', fillMode: 'ai', required: true },
                  { name: 'qty', type: 'integer', fillMode: 'ai' },
                  { name: 'currency', type: 'string', fillMode: 'fixed', value: 'EUR' },
                  {
                    name: 'gift',
                    type: 'object',
                    fillMode: 'ai',
                    fields: [
                      { name: 'note', type: 'string', fillMode: 'ai' },
                      { name: 'wrapped', type: 'boolean', fillMode: 'fixed', value: 'true' },
                    ],
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const run = await runTest(tool.id, {
      args: {
        order: {
          customer: 'Ada',
          store: 'ignored: not AI-filled',
          lines: [
            { sku: 'A1', qty: 2, extra: 'dropped' },
            { sku: 'B2', gift: { note: 'Happy birthday' } },
          ],
        },
      },
      variables: { store: 'berlin' },
    });
    expect(run.error).toBeNull();
    expect(JSON.parse(run.received[0].body)).toEqual({
      order: {
        customer: 'Ada',
        store: 'berlin',
        lines: [
          { sku: 'A1', qty: 2, currency: 'EUR' },
          { sku: 'B2', currency: 'EUR', gift: { note: 'Happy birthday', wrapped: true } },
        ],
      },
    });
  });

  it('checks AI values before anything is sent: type, allowed values, required', async () => {
    const tool = await createdTool({
      parameters: [
        { name: 'plan', location: 'body', type: 'string', fillMode: 'ai', allowedValues: ['basic', 'pro'] },
        { name: 'seats', location: 'body', type: 'integer', fillMode: 'ai', required: true },
        {
          name: 'lines',
          location: 'body',
          type: 'array',
          fillMode: 'ai',
          items: { type: 'object', fields: [{ name: 'sku', type: 'string', fillMode: 'ai', required: true }] },
        },
      ],
    });
    const run = await runTest(tool.id, { args: { plan: 'gold', lines: [{ sku: 1 }, {}] } });
    expect(run.received).toHaveLength(0);
    expect(run.request).toBeNull();
    expect(run.response).toBeNull();
    expect(run.error).toMatch(/plan must be one of "basic", "pro"/);
    expect(run.error).toMatch(/seats is required/);
    expect(run.error).toMatch(/lines\[0\]\.sku must be a string/);
    expect(run.error).toMatch(/lines\[1\]\.sku is required/);
    expect(run.result).toMatch(/^Error: /);
    const wrongType = await runTest(tool.id, { args: { seats: '3' } });
    expect(wrongType.error).toMatch(/seats must be an integer/);
    expect(wrongType.received).toHaveLength(0);
  });

  it('resolves {{ }} from the given variables, then the default, else ""', async () => {
    const tool = await createdTool({
      headers: [{ key: 'X-Trace', mode: 'variable', value: '{{given}}/{{defaulted}}/{{missing}}' }],
      variables: [
        { name: 'given', defaultValue: 'unused' },
        { name: 'defaulted', defaultValue: 'dflt' },
        { name: 'missing' },
      ],
      parameters: [
        { name: 'note', location: 'body', type: 'string', fillMode: 'variable', value: '<{{missing}}>' },
        { name: 'n', location: 'body', type: 'integer', fillMode: 'variable', value: '{{missing}}' },
      ],
    });
    const run = await runTest(tool.id, { variables: { given: 'from-call' } });
    expect(run.received[0].headers['x-trace']).toBe('from-call/dflt/');
    // An empty Variable is "" for strings and left out for other types.
    expect(JSON.parse(run.received[0].body)).toEqual({ note: '<>' });
  });

  it('never re-expands {{ }} inside a value, and refuses a line break headed for a header', async () => {
    const tool = await createdTool({
      headers: [{ key: 'X-Name', mode: 'variable', value: '{{name}}' }],
      variables: [{ name: 'name' }, { name: 'secret', defaultValue: 'do-not-leak' }],
      parameters: [{ name: 'name', location: 'body', type: 'string', fillMode: 'variable', value: '{{name}}' }],
    });
    const ok = await runTest(tool.id, { variables: { name: '{{secret}}' } });
    expect(ok.received[0].headers['x-name']).toBe('{{secret}}');
    expect(JSON.parse(ok.received[0].body)).toEqual({ name: '{{secret}}' });
    const injected = await runTest(tool.id, { variables: { name: 'Ada\r\nX-Admin: true' } });
    expect(injected.received).toHaveLength(0);
    expect(injected.error).toMatch(/header X-Name would contain a line break/);
  });

  it('converts Variable values to their types and reports one that cannot be converted', async () => {
    const tool = await createdTool({
      variables: [{ name: 'n' }],
      parameters: [{ name: 'n', location: 'body', type: 'integer', fillMode: 'variable', value: '{{n}}' }],
    });
    expect(JSON.parse((await runTest(tool.id, { variables: { n: '7' } })).received[0].body)).toEqual({ n: 7 });
    const bad = await runTest(tool.id, { variables: { n: 'seven' } });
    expect(bad.received).toHaveLength(0);
    expect(bad.error).toMatch(/"seven" cannot be converted to an integer/);
  });
});

describe('what comes back', () => {
  let endpoint: Receiver;
  beforeAll(async () => {
    endpoint = await startReceiver();
  });
  afterAll(() => endpoint.close());

  const toolAt = (path: string, extra: Record<string, unknown> = {}) =>
    createdTool({ method: 'GET', url: `${endpoint.url}${path}`, ...extra });

  it('hands back the body of a 2xx as the result', async () => {
    endpoint.answer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":"L-1"}');
    });
    const run = await runTest((await toolAt('/ok')).id);
    expect(run).toMatchObject({ result: '{"id":"L-1"}', error: null, response: { status: 200, body: '{"id":"L-1"}' } });
  });

  it('turns a 5xx into a short error naming the status', async () => {
    endpoint.answer((_req, res) => {
      res.writeHead(503);
      res.end('maintenance');
    });
    const run = await runTest((await toolAt('/down')).id);
    expect(run.response).toEqual({ status: 503, body: 'maintenance' });
    expect(run.error).toBe('The tool endpoint answered HTTP 503');
    expect(run.result).toBe('Error: The tool endpoint answered HTTP 503: maintenance');
  });

  it('does not follow redirects', async () => {
    const target = await startReceiver();
    endpoint.answer((_req, res) => {
      res.writeHead(302, { location: `${target.url}/elsewhere` });
      res.end();
    });
    const run = await runTest((await toolAt('/moved')).id);
    await target.close();
    expect(target.requests).toHaveLength(0);
    expect(run.response.status).toBe(302);
    expect(run.error).toBe('The tool endpoint answered HTTP 302');
  });

  it('gives up after timeoutMs and says so', async () => {
    endpoint.answer(() => {});
    const run = await runTest((await toolAt('/slow', { timeoutMs: 1000 })).id);
    expect(run.error).toBe('No complete answer within 1000 ms');
    expect(run.latencyMs).toBeGreaterThanOrEqual(990);
    expect(run.request).not.toBeNull();
  });

  it('reports a refused connection, with nothing sent', async () => {
    const closed = await startReceiver();
    await closed.close();
    const tool = await createdTool({ method: 'GET', url: `${closed.url}/gone` });
    const run = await runTest(tool.id);
    expect(run.request).toBeNull();
    expect(run.error).toMatch(/^Connection refused by 127\.0\.0\.1:\d+$/);
  });

  it('cuts the result to 16 KiB', async () => {
    endpoint.answer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('é'.repeat(600_000));
    });
    const run = await runTest((await toolAt('/big')).id);
    expect(Buffer.byteLength(run.result)).toBeLessThanOrEqual(16 * 1024);
    expect(Buffer.byteLength(run.result)).toBeGreaterThan(16 * 1024 - 2);
    expect(run.result).toMatch(/^é+$/);
  });
});

describe('secret header values', () => {
  it('are stored encrypted, read back masked, sent in full, and masked in what the test shows', async () => {
    const tool = await createdTool({
      headers: [
        { key: 'Authorization', mode: 'fixed', value: 'Bearer sk_live_abc123' },
        { key: 'X-Api-Key', mode: 'variable', value: '{{key}}' },
        { key: 'X-Plain', mode: 'fixed', value: 'visible' },
      ],
      variables: [{ name: 'key', defaultValue: 'k_987' }],
    });
    expect(tool.headers).toEqual([
      { key: 'Authorization', mode: 'fixed', value: '••••••', secret: true },
      { key: 'X-Api-Key', mode: 'variable', value: '{{key}}', secret: true },
      { key: 'X-Plain', mode: 'fixed', value: 'visible', secret: false },
    ]);
    const stored = await t.db.database.db.execute(`select headers::text as h from tools where id = '${tool.id}'`);
    expect(JSON.stringify(stored)).not.toContain('sk_live_abc123');

    const run = await runTest(tool.id);
    expect(run.received[0].headers.authorization).toBe('Bearer sk_live_abc123');
    expect(run.received[0].headers['x-api-key']).toBe('k_987');
    expect(run.request.headers).toMatchObject({
      authorization: 'Bearer ••••••',
      'x-api-key': '••••••',
      'x-plain': 'visible',
    });
    const { received: _sent, ...answer } = run;
    expect(JSON.stringify(answer)).not.toMatch(/sk_live_abc123/);

    // Writing back what was read keeps the secret; a new value replaces it.
    const roundTrip = await t.request('PATCH', `/v1/tools/${tool.id}`, {
      headers: org.auth,
      body: { headers: tool.headers.map(({ key, mode, value }: Record<string, string>) => ({ key, mode, value })) },
    });
    expect(roundTrip.status).toBe(200);
    expect((await runTest(tool.id)).received[0].headers.authorization).toBe('Bearer sk_live_abc123');
    await t.request('PATCH', `/v1/tools/${tool.id}`, {
      headers: org.auth,
      body: { headers: [{ key: 'Authorization', mode: 'fixed', value: 'Bearer sk_live_new' }] },
    });
    expect((await runTest(tool.id)).received[0].headers.authorization).toBe('Bearer sk_live_new');
  });

  it('refuses the mask where no secret is stored under that key', async () => {
    const response = await createTool({ headers: [{ key: 'Authorization', mode: 'fixed', value: '••••••' }] });
    expect(response.status).toBe(422);
    expect(response.body.details).toEqual([{ path: '$.headers[0].value', message: expect.stringMatching(/mask/) }]);
  });

  const patchTool = (id: string, body: Record<string, unknown>) =>
    t.request('PATCH', `/v1/tools/${id}`, { headers: org.auth, body });

  it('keeps a secret for the mask only while it stays secret; otherwise 422 asks for the value', async () => {
    const tool = await createdTool({
      headers: [
        { key: 'Authorization', mode: 'fixed', value: 'Bearer sk_live_abc123' },
        { key: 'X-Custom', mode: 'fixed', value: 'custom_secret_1', secret: true },
      ],
    });
    const mask = '••••••';
    const refusals: [string, Record<string, unknown>[]][] = [
      ['made non-secret', [{ key: 'Authorization', mode: 'fixed', value: mask, secret: false }]],
      ['made a Variable', [{ key: 'Authorization', mode: 'variable', value: mask, secret: true }]],
      ['renamed', [{ key: 'X-Renamed', mode: 'fixed', value: mask, secret: true }]],
      [
        'a new header',
        [
          { key: 'Authorization', mode: 'fixed', value: mask },
          { key: 'X-New-Token', mode: 'fixed', value: mask },
        ],
      ],
    ];
    for (const [what, headers] of refusals) {
      const response = await patchTool(tool.id, { headers });
      expect(response.status, what).toBe(422);
      expect(response.body.code, what).toBe('api:validation');
      expect(response.body.details, what).toEqual([
        { path: `$.headers[${headers.length - 1}].value`, message: expect.stringMatching(/send the real value/) },
      ]);
      expect(JSON.stringify(response.body), what).not.toContain('sk_live_abc123');
    }
    // Nothing changed: still secret, still sent in full, never readable.
    const read = await t.request('GET', `/v1/tools/${tool.id}`, { headers: org.auth });
    expect(read.body.headers).toEqual(tool.headers);
    expect(JSON.stringify(read.body)).not.toContain('sk_live_abc123');
    expect((await runTest(tool.id)).received[0].headers.authorization).toBe('Bearer sk_live_abc123');

    // The mask with `secret` left out keeps the secret as it was, whatever the header's name.
    const kept = await patchTool(tool.id, {
      headers: [
        { key: 'authorization', mode: 'fixed', value: mask },
        { key: 'X-Custom', mode: 'fixed', value: mask },
      ],
    });
    expect(kept.status).toBe(200);
    expect(kept.body.headers).toEqual([
      { key: 'authorization', mode: 'fixed', value: mask, secret: true },
      { key: 'X-Custom', mode: 'fixed', value: mask, secret: true },
    ]);
    expect((await runTest(tool.id)).received[0].headers['x-custom']).toBe('custom_secret_1');
  });

  it('asks for every secret again when the URL moves to another origin; a new path keeps them', async () => {
    const port = new URL(receiver.url).port;
    const tool = await createdTool({
      url: `http://127.0.0.1:${port}/a`,
      headers: [
        { key: 'X-Plain', mode: 'fixed', value: 'visible' },
        { key: 'Authorization', mode: 'fixed', value: 'Bearer sk_live_abc123' },
        { key: 'X-Token', mode: 'variable', value: '{{token}}' },
        { key: 'X-Api-Key', mode: 'fixed', value: 'key_987' },
      ],
      variables: [{ name: 'token', defaultValue: 't' }],
    });
    const giveAgain = (i: number) => ({ path: `$.headers[${i}].value`, message: expect.stringMatching(/given again/) });
    for (const url of [`http://localhost:${port}/a`, `https://127.0.0.1:${port}/a`, 'http://127.0.0.1:9/a']) {
      // Headers left out, or written back masked: both would send the stored secrets to the new origin.
      const omitted = await patchTool(tool.id, { url });
      expect(omitted.status, url).toBe(422);
      expect(omitted.body.details, url).toEqual([giveAgain(1), giveAgain(3)]);
      const masked = await patchTool(tool.id, { url, headers: tool.headers });
      expect(masked.status, url).toBe(422);
      expect(masked.body.details, url).toEqual([giveAgain(1), giveAgain(3)]);
    }
    expect((await t.request('GET', `/v1/tools/${tool.id}`, { headers: org.auth })).body.url).toBe(
      `http://127.0.0.1:${port}/a`,
    );

    // The same origin (scheme, host, port) with another path keeps them.
    const moved = await patchTool(tool.id, { url: `http://127.0.0.1:${port}/b?x=1`, headers: tool.headers });
    expect(moved.status).toBe(200);
    expect((await runTest(tool.id)).received[0].headers.authorization).toBe('Bearer sk_live_abc123');

    // Given again, they go to the new origin.
    const given = await patchTool(tool.id, {
      url: `http://localhost:${port}/c`,
      headers: [
        { key: 'Authorization', mode: 'fixed', value: 'Bearer for_localhost' },
        { key: 'X-Api-Key', mode: 'fixed', value: 'key_localhost' },
      ],
    });
    expect(given.status).toBe(200);
    const sent = (await runTest(tool.id)).received[0];
    expect(sent.headers).toMatchObject({ authorization: 'Bearer for_localhost', 'x-api-key': 'key_localhost' });
  });
});

describe('attaching tools to agents', () => {
  it('refuses ids that name no tool of the organization', async () => {
    const other = await t.signup();
    const foreign = await t.request('POST', '/v1/tools', {
      headers: other.auth,
      body: { name: 'theirs', method: 'GET', url: receiver.url },
    });
    const response = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'A', toolIds: ['tool_nope', foreign.body.id] },
    });
    expect(response.status).toBe(422);
    expect(response.body.details.map((d: { path: string }) => d.path)).toEqual(['$.toolIds[0]', '$.toolIds[1]']);
  });

  it('lets one tool serve many agents, and deleting it detaches it from all of them', async () => {
    const tool = await createdTool({});
    const keep = await createdTool({});
    const a = await t.createAgent(org, { toolIds: [tool.id, keep.id] });
    const b = await t.createAgent(org, {});
    const patched = await t.request('PATCH', `/v1/agents/${b.id}`, { headers: org.auth, body: { toolIds: [tool.id] } });
    expect(patched.status).toBe(200);
    expect(patched.body.toolIds).toEqual([tool.id]);
    expect(a.toolIds).toEqual([tool.id, keep.id]);

    expect((await t.request('DELETE', `/v1/tools/${tool.id}`, { headers: org.auth })).status).toBe(204);
    expect((await t.request('GET', `/v1/agents/${a.id}`, { headers: org.auth })).body.toolIds).toEqual([keep.id]);
    expect((await t.request('GET', `/v1/agents/${b.id}`, { headers: org.auth })).body.toolIds).toEqual([]);
  });
});
