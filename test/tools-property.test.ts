import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

// Random, often invalid, tool definitions and arguments through the API: never a 5xx, never a crash;
// a refused definition writes nothing; an accepted one always runs to a result (sent or refused).
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

const name = fc.constantFrom('a', 'b', 'id', 'email', 'x_1', '__proto__', 'constructor', 'bad name', '');
const type = fc.constantFrom('string', 'number', 'integer', 'boolean', 'object', 'array', 'date');
const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const field = fc.letrec((tie) => ({
  field: fc.record(
    {
      name,
      type,
      fillMode: fc.constantFrom('ai', 'variable', 'fixed', 'magic'),
      value: fc.oneof(scalar, fc.constantFrom('{{v}}', '{{missing}}', '[1,2]', '{"a":1}', 'a\r\nb')),
      allowedValues: fc.array(scalar, { maxLength: 3 }),
      required: fc.boolean(),
      fields: fc.array(tie('field'), { maxLength: 2 }),
      items: fc.record({ type, fields: fc.array(tie('field'), { maxLength: 2 }) }, { requiredKeys: ['type'] }),
    },
    { requiredKeys: ['name', 'type', 'fillMode'] },
  ),
}));
const parameter = fc
  .tuple(field.field, fc.constantFrom('body', 'query', 'path', 'header'))
  .map(([f, location]) => ({ ...(f as object), location }));
const definition = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
  path: fc.constantFrom('/x', '/x/{id}', '/x/{a}/{b}', '/x?y=1'),
  headers: fc.array(
    fc.record({
      key: fc.constantFrom('X-A', 'Authorization', 'Host', 'bad key'),
      mode: fc.constantFrom('fixed', 'variable'),
      value: fc.constantFrom('v', '{{v}}', '{{nope}}', 'Bearer t'),
    }),
    { maxLength: 3 },
  ),
  parameters: fc.array(parameter, { maxLength: 4 }),
  variables: fc.array(
    fc.record({ name: fc.constantFrom('v', 'id', 'a', '1bad'), defaultValue: fc.string({ maxLength: 5 }) }),
    { maxLength: 2 },
  ),
});
/**
 * Whether the API's JSON parser refuses a body holding this value before any route sees it
 * (src/app.ts): a `__proto__` key, or a `constructor` key whose object has a `prototype` key.
 */
function refusedByParser(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(
    ([key, inner]) =>
      key === '__proto__' ||
      (key === 'constructor' && typeof inner === 'object' && inner !== null && Object.hasOwn(inner, 'prototype')) ||
      refusedByParser(inner),
  );
}

const args = fc.dictionary(
  fc.constantFrom('a', 'b', 'id', 'email', 'x_1', '__proto__', 'constructor'),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 4 },
);

describe('random tool definitions and arguments', () => {
  it('never answer 5xx; refused definitions write nothing; accepted ones always run to a result', async () => {
    let count = 0;
    await fc.assert(
      fc.asyncProperty(
        definition,
        args,
        fc.dictionary(fc.constantFrom('v', 'id', 'a'), fc.string({ maxLength: 6 })),
        async (def, toolArgs, variables) => {
          const before = await t.request('GET', '/v1/tools?limit=100', { headers: org.auth });
          const created = await t.request('POST', '/v1/tools', {
            headers: org.auth,
            body: {
              name: `p_${++count}`,
              method: def.method,
              url: `${receiver.url}${def.path}`,
              headers: def.headers,
              parameters: def.parameters,
              variables: def.variables,
            },
          });
          expect([201, 422], JSON.stringify(created.body)).toContain(created.status);
          if (created.status === 422) {
            expect(created.body.details.length).toBeGreaterThan(0);
            const after = await t.request('GET', '/v1/tools?limit=100', { headers: org.auth });
            expect(after.body.data.length).toBe(before.body.data.length);
            return;
          }
          const run = await t.request('POST', `/v1/tools/${created.body.id}/test`, {
            headers: org.auth,
            body: { args: toolArgs, variables },
          });
          await t.request('DELETE', `/v1/tools/${created.body.id}`, { headers: org.auth });
          if (refusedByParser(toolArgs)) {
            // The API's JSON parser refuses prototype-polluting keys before any route sees them.
            expect(run.status).toBe(422);
            expect(run.body.details[0].message).toMatch(/forbidden key/);
            return;
          }
          expect(run.status, JSON.stringify(run.body)).toBe(200);
          expect(typeof run.body.result).toBe('string');
          if (run.body.request === null) expect(run.body.error).toEqual(expect.any(String));
        },
      ),
      { numRuns: 150, seed: Number(process.env.FC_SEED ?? Date.now() % 1_000_000) },
    );
  });

  // Mostly valid definitions, so that running them is exercised as much as refusing them.
  const fixedFor: Record<string, string> = { string: 'text', number: '1.5', integer: '42', boolean: 'true' };
  const validParameter = fc
    .record({
      name: fc.constantFrom('a', 'b', 'id', 'email', 'x_1', 'constructor'),
      location: fc.constantFrom('body', 'query'),
      type: fc.constantFrom('string', 'number', 'integer', 'boolean', 'array'),
      fillMode: fc.constantFrom('ai', 'ai', 'variable', 'fixed'),
      required: fc.boolean(),
      allowed: fc.boolean(),
    })
    .map(({ name, location, type, fillMode, required, allowed }) => ({
      name,
      location,
      type,
      fillMode,
      required,
      ...(type === 'array' ? { items: { type: 'string' } } : {}),
      ...(fillMode === 'fixed' ? { value: type === 'array' ? '["p","q"]' : fixedFor[type] } : {}),
      ...(fillMode === 'variable' ? { value: '{{v}}' } : {}),
      ...(allowed && type === 'string' && fillMode === 'ai' ? { allowedValues: ['p', 'q'] } : {}),
    }));
  const validDefinition = fc.uniqueArray(validParameter, { maxLength: 4, selector: (p) => p.name });

  it('valid definitions with random arguments always run: sent as built, or refused with the reason', async () => {
    let count = 0;
    await fc.assert(
      fc.asyncProperty(validDefinition, args, fc.string({ maxLength: 6 }), async (parameters, toolArgs, v) => {
        const created = await t.request('POST', '/v1/tools', {
          headers: org.auth,
          body: {
            name: `v_${++count}`,
            method: 'POST',
            url: `${receiver.url}/v`,
            parameters,
            variables: [{ name: 'v' }],
          },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        if (refusedByParser(toolArgs)) return;
        const sentBefore = receiver.requests.length;
        const run = await t.request('POST', `/v1/tools/${created.body.id}/test`, {
          headers: org.auth,
          body: { args: toolArgs, variables: { v } },
        });
        expect(run.status, JSON.stringify(run.body)).toBe(200);
        if (run.body.request === null) {
          expect(run.body.error).toMatch(/^The tool was not called: /);
          expect(receiver.requests.length).toBe(sentBefore);
        } else {
          expect(run.body.error).toBeNull();
          expect(receiver.requests.length).toBe(sentBefore + 1);
          const received = receiver.requests.at(-1)!;
          if (parameters.some((p) => p.location === 'body'))
            expect(JSON.parse(received.body)).toEqual(JSON.parse(run.body.request.body));
        }
        await t.request('DELETE', `/v1/tools/${created.body.id}`, { headers: org.auth });
      }),
      { numRuns: 150, seed: Number(process.env.FC_SEED ?? Date.now() % 1_000_000) },
    );
  });
});
