import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CTC_ERRORS } from '../src/click-to-call/ctc-errors.js';
import { UNDOCUMENTED_ROUTES } from '../src/openapi.js';
import { answerChecker } from './helpers/api-document.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { haveBrowser, launchBrowser, screenshot } from './helpers/browser.js';

let t: TestApp;
let org: Org;
let spec: any;

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
  const response = await t.request('GET', '/openapi.json');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  spec = response.body;
});
afterAll(() => t.close());

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const OPERATION_FIELDS = new Set([
  'tags',
  'summary',
  'description',
  'externalDocs',
  'operationId',
  'parameters',
  'requestBody',
  'responses',
  'callbacks',
  'deprecated',
  'security',
  'servers',
]);

/**
 * No OpenAPI validator is installed (and none may be added), nor the OpenAPI JSON Schema: this
 * checks what the OpenAPI 3.1 specification requires of each object the document uses, strictly
 * (unknown operation fields are refused), and compiles every Schema Object as JSON Schema 2020-12,
 * the dialect OpenAPI 3.1 uses. Returns the problems found, empty when there are none.
 */
function openApiProblems(doc: any): string[] {
  const problems: string[] = [];
  const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: false });
  ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
  const checkSchema = (where: string, schema: unknown) => {
    if (typeof schema !== 'object' || schema === null) return problems.push(`${where}: schema is not an object`);
    try {
      // Local $refs point into the document: resolved against it.
      ajv.compile({ ...(schema as object), components: doc.components } as object);
    } catch (error) {
      problems.push(`${where}: ${(error as Error).message}`);
    }
  };
  if (!/^3\.1\.\d+$/.test(doc.openapi)) problems.push(`openapi: ${doc.openapi} is not 3.1.x`);
  if (typeof doc.info?.title !== 'string' || typeof doc.info?.version !== 'string')
    problems.push('info: title and version are required');
  const schemes = doc.components?.securitySchemes ?? {};
  for (const [name, scheme] of Object.entries<any>(schemes)) {
    if (scheme.type === 'http' && typeof scheme.scheme !== 'string')
      problems.push(`securityScheme ${name}: scheme required`);
    else if (scheme.type === 'apiKey' && (!['query', 'header', 'cookie'].includes(scheme.in) || !scheme.name))
      problems.push(`securityScheme ${name}: in and name required`);
    else if (!['http', 'apiKey', 'oauth2', 'openIdConnect', 'mutualTLS'].includes(scheme.type))
      problems.push(`securityScheme ${name}: unknown type ${scheme.type}`);
  }
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {}))
    checkSchema(`components.schemas.${name}`, schema);
  const operationIds = new Set<string>();
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    if (!path.startsWith('/')) problems.push(`path ${path} does not start with /`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const [method, operation] of Object.entries<any>(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!METHODS.includes(method)) {
        problems.push(`${where}: not an HTTP method`);
        continue;
      }
      for (const field of Object.keys(operation))
        if (!OPERATION_FIELDS.has(field) && !field.startsWith('x-')) problems.push(`${where}: unknown field ${field}`);
      if (operation.operationId) {
        if (operationIds.has(operation.operationId)) problems.push(`${where}: duplicate operationId`);
        operationIds.add(operation.operationId);
      }
      const parameters: any[] = operation.parameters ?? [];
      const seen = new Set<string>();
      for (const parameter of parameters) {
        if (!['path', 'query', 'header', 'cookie'].includes(parameter.in) || typeof parameter.name !== 'string')
          problems.push(`${where}: parameter without a valid name and in`);
        if (seen.has(`${parameter.in} ${parameter.name}`)) problems.push(`${where}: parameter ${parameter.name} twice`);
        seen.add(`${parameter.in} ${parameter.name}`);
        if (parameter.in === 'path' && parameter.required !== true)
          problems.push(`${where}: path parameter ${parameter.name} not required`);
        if (parameter.in === 'path' && !templated.includes(parameter.name))
          problems.push(`${where}: ${parameter.name} is not in the path`);
        checkSchema(`${where} parameter ${parameter.name}`, parameter.schema);
      }
      for (const name of templated)
        if (!parameters.some((p) => p.in === 'path' && p.name === name))
          problems.push(`${where}: {${name}} is not declared`);
      if (operation.requestBody) {
        const content = operation.requestBody.content;
        if (!content || Object.keys(content).length === 0) problems.push(`${where}: requestBody without content`);
        for (const [type, media] of Object.entries<any>(content ?? {}))
          checkSchema(`${where} body ${type}`, media.schema);
      }
      const responses = Object.entries<any>(operation.responses ?? {});
      if (responses.length === 0) problems.push(`${where}: no responses`);
      for (const [status, response] of responses) {
        if (!/^([1-5](\d\d|XX)|default)$/.test(status)) problems.push(`${where}: response key ${status}`);
        if (typeof response.description !== 'string') problems.push(`${where} ${status}: description is required`);
        for (const [type, media] of Object.entries<any>(response.content ?? {})) {
          checkSchema(`${where} ${status} ${type}`, media.schema);
          if (media.example !== undefined && media.examples !== undefined)
            problems.push(`${where} ${status}: example and examples`);
          for (const [name, example] of Object.entries<any>(media.examples ?? {}))
            if (!('value' in example)) problems.push(`${where} ${status}: example ${name} has no value`);
        }
      }
      for (const requirement of [...(operation.security ?? []), ...(doc.security ?? [])])
        for (const name of Object.keys(requirement))
          if (!(name in schemes)) problems.push(`${where}: security scheme ${name} is not defined`);
    }
  }
  return problems;
}

function operation(method: string, path: string): any {
  return spec.paths[path]?.[method.toLowerCase()];
}

describe('GET /openapi.json', () => {
  it('has schemas that all compile: validators and serializers, compiled on first use, compile all at once here', () => {
    // Compiled lazily so that a start does not pay for them (decision 0034); a broken schema must
    // still fail a test, not a route's first request in production.
    expect(() => t.app.compileAllSchemas()).not.toThrow();
  });

  it('is built when first asked for, by a generator the app itself does not load: every request gets the same bytes', async () => {
    // The app registers no @fastify/swagger: loaded at start it held ~3.5 MB of every idle process (decision 0082).
    expect(t.app.hasDecorator('swagger')).toBe(false);
    const fresh = await startTestApp();
    try {
      const answers = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const response = await fetch(`${fresh.url}/openapi.json`);
          return `${response.status} ${await response.text()}`;
        }),
      );
      expect(new Set(answers).size).toBe(1);
      expect(answers[0]?.startsWith('200 ')).toBe(true);
      const again = await fetch(`${fresh.url}/openapi.json`);
      expect(`${again.status} ${await again.text()}`).toBe(answers[0]);
      expect(JSON.parse(answers[0]?.slice(4) ?? '')).toEqual(spec);
    } finally {
      await fresh.close();
    }
  });

  it('is an OpenAPI 3.1 document', () => {
    expect(openApiProblems(spec)).toEqual([]);
  });

  it('the structural check refuses what OpenAPI refuses', () => {
    const broken = structuredClone(spec);
    broken.paths['/v1/agents/{id}'].get.parameters = [];
    broken.paths['/v1/agents'].get.responses = {};
    broken.paths['/v1/agents'].post.summery = 'typo';
    broken.paths['/v1/calls'].get.parameters[0].schema = { type: 'strin' };
    expect(openApiProblems(broken).sort()).toEqual([
      'GET /v1/agents/{id}: {id} is not declared',
      'GET /v1/agents: no responses',
      expect.stringMatching(/^GET \/v1\/calls parameter \w+: schema is invalid: data\/type must be/),
      'POST /v1/agents: unknown field summery',
    ]);
  });

  it('lists every route the server registers, and nothing else', () => {
    // The dashboard's pages and files are the only routes left out (decision 0026).
    const registered = t.app.routeTable
      .filter((route) => !UNDOCUMENTED_ROUTES.includes(route.url))
      .map((route) => `${route.method} ${route.url.replace(/:(\w+)/g, '{$1}')}`);
    const documented = Object.entries<any>(spec.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(new Set(registered).size).toBe(registered.length);
    expect(documented.sort()).toEqual(registered.sort());
    expect(registered).toContain('POST /api/click-to-call');
    expect(registered).toContain('GET /docs');
  });

  it('gives every operation a tag, a summary, a unique readable operationId, its security and a schema for every answer', () => {
    const ids: string[] = [];
    for (const [path, item] of Object.entries<any>(spec.paths))
      for (const [method, op] of Object.entries<any>(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(op.summary, where).toEqual(expect.any(String));
        expect(op.tags, where).toHaveLength(1);
        expect(op.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
        ids.push(op.operationId);
        // Public routes say so (security: []); the document has no global security to inherit.
        expect(op.security, where).toEqual(expect.any(Array));
        for (const [status, response] of Object.entries<any>(op.responses)) {
          if (status === '204') continue;
          const media = Object.values<any>(response.content ?? {});
          expect(media.length, `${where} ${status}`).toBeGreaterThan(0);
          for (const m of media) expect(m.schema, `${where} ${status}`).toEqual(expect.any(Object));
        }
      }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining(['createAgent', 'listCalls', 'getCall', 'triggerClickToCall', 'getAgentCredentials']),
    );
    expect(spec.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it('shows the shared views once, under components/schemas, with no reference left unresolved', () => {
    expect(Object.keys(spec.components.schemas)).toEqual(
      expect.arrayContaining(['Agent', 'Call', 'Delivery', 'Tool', 'ToolField', 'Integration', 'ApiError']),
    );
    const refs = [...JSON.stringify(spec).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1] as string);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(spec.components.schemas[ref.slice('#/components/schemas/'.length)], ref).toBeDefined();
    }
  });

  it('shows the request schemas the routes validate with', () => {
    const create = operation('POST', '/v1/agents').requestBody.content['application/json'].schema;
    expect(create.required).toEqual(['name']);
    expect(create.properties.type.enum).toEqual(['click_to_call', 'inbound', 'outbound']);
    const query = operation('GET', '/v1/calls').parameters.map((p: any) => `${p.in} ${p.name}`);
    expect(query).toEqual(expect.arrayContaining(['query agentId', 'query status', 'query cursor']));
  });

  it('documents authentication: API key or session on the management API, api-key + signature on click to call', () => {
    expect(Object.keys(spec.components.securitySchemes).sort()).toEqual([
      'bearerApiKey',
      'ctcApiKey',
      'ctcSignature',
      'retellSignature',
      'sessionCookie',
      'vapiSecret',
    ]);
    expect(operation('GET', '/v1/agents').security).toEqual([{ bearerApiKey: [] }, { sessionCookie: [] }]);
    expect(operation('POST', '/v1/signup').security).toEqual([]);
    expect(operation('GET', '/healthz').security).toEqual([]);
    expect(operation('POST', '/providers/vapi/webhook').security).toEqual([{ vapiSecret: [] }]);
    expect(operation('POST', '/api/click-to-call').security).toContainEqual({ ctcApiKey: [], ctcSignature: [] });
  });
});

/** The rows of the click-to-call check table in docs/interface.md: code, HTTP status, message. */
function documentedCtcCodes(): { code: string; status: string; message: string }[] {
  const reference = readFileSync(new URL('../docs/interface.md', import.meta.url), 'utf8');
  return [...reference.matchAll(/^\|[^|]+\|[^|]+\|\s*(ctc:\d{3})\s*\|\s*(\d{3})\s*\|\s*([^|]+?)\s*\|$/gm)].map((m) => ({
    code: m[1] as string,
    status: m[2] as string,
    message: m[3] as string,
  }));
}

describe('POST /api/click-to-call in the document', () => {
  it('lists every ctc code of the interface reference with its status, message and an example', () => {
    const all = documentedCtcCodes();
    // The reference lists every code the service answers, each as the code answers it.
    expect([...new Set(all.map((c) => c.code))].sort()).toEqual(Object.keys(CTC_ERRORS).sort());
    for (const { code, status, message } of all) {
      const known = CTC_ERRORS[code as keyof typeof CTC_ERRORS];
      expect({ code, status, message }).toEqual({ code, status: String(known.status), message: known.message });
    }
    const responses = operation('POST', '/api/click-to-call').responses;
    for (const { code, status, message } of all) {
      const media = responses[status]?.content['application/json'];
      expect(media?.schema.properties.code.enum, `${code} under ${status}`).toContain(code);
      expect(media.schema.properties.message.enum).toContain(message);
      expect(media.examples[code].value).toMatchObject({ success: false, code, message });
      expect(responses[status].description).toContain(`${code} ${message}`);
    }
    expect(responses['200'].content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['success', 'callId', 'status']),
    );
    expect(responses['429'].headers['retry-after']).toBeDefined();
  });

  it('shows the request: the example body and the headers', () => {
    const op = operation('POST', '/api/click-to-call');
    const body = op.requestBody.content['application/json'];
    expect(body.examples.lead.value).toEqual({ phone: '+14155550123', variables: { name: 'Ada' } });
    expect(body.schema.required).toEqual(['phone']);
    expect(op.parameters.map((p: any) => `${p.in} ${p.name}`)).toContain('header idempotency-key');
  });

  it('describes what the server really answers', async () => {
    const responses = operation('POST', '/api/click-to-call').responses;
    const ajv = new Ajv2020.default({ strict: false, allErrors: true });
    const conforms = (response: { status: number; body: unknown }) => {
      const validate = ajv.compile(responses[String(response.status)].content['application/json'].schema);
      return validate(response.body) ? [] : validate.errors;
    };
    const agent = await t.createAgent(org);
    const { apiToken, apiSecret } = await t.credentials(org, agent.id);
    const answers = [
      await t.clickToCall({
        token: apiToken,
        secret: apiSecret,
        body: { phone: nextPhone(), variables: { name: 'Ada' } },
      }),
      await t.clickToCall({ token: '' }),
      await t.clickToCall({ token: 'wrong' }),
      await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: '12' } }),
    ];
    expect(answers.map((a) => `${a.status} ${a.body.code ?? ''}`)).toEqual([
      '200 ',
      '400 ctc:001',
      '403 ctc:003',
      '400 ctc:009',
    ]);
    for (const answer of answers) expect(conforms(answer)).toEqual([]);
    const testCall = await t.request('POST', `/v1/agents/${agent.id}/test-call`, {
      headers: org.auth,
      body: { phone: nextPhone() },
    });
    expect(testCall.status).toBe(200);
    const testCallSchema = operation('POST', '/v1/agents/{id}/test-call').responses['200'].content['application/json'];
    expect(ajv.validate(testCallSchema.schema, testCall.body), JSON.stringify(ajv.errors)).toBe(true);
    // A field the documented schema leaves out would be refused, so the check above can fail.
    expect(conforms({ status: 403, body: { ...answers[2]?.body, extra: 1 } })).not.toEqual([]);
  });

  it('documents the management API error body, as the server answers it', async () => {
    const check = answerChecker(spec);
    const unauthorized = await t.request('GET', '/v1/agents');
    const invalid = await t.request('POST', '/v1/agents', { headers: org.auth, body: {} });
    expect([unauthorized.status, invalid.status]).toEqual([401, 422]);
    const answer = (method: string, path: string, status: number, body: unknown) =>
      check({ method, path, status, contentType: 'application/json; charset=utf-8', body });
    expect(answer('GET', '/v1/agents', 401, unauthorized.body)).toEqual([]);
    expect(answer('POST', '/v1/agents', 422, invalid.body)).toEqual([]);
    // The check every HTTP test runs (test/helpers/app.ts) fails on a wrong body and on an
    // undocumented status, so an answer the document does not describe cannot pass unseen.
    expect(answer('POST', '/v1/agents', 422, { ...invalid.body, details: 'x' })).not.toEqual([]);
    expect(answer('GET', '/v1/agents/agt_1', 200, { id: 'agt_1' })).not.toEqual([]);
    expect(answer('GET', '/v1/agents', 418, {})).toEqual([
      'GET /v1/agents 418: the document has no answer for this status',
    ]);
    expect(answer('POST', '/v1/tools/preview', 200, { aiSchema: {} })).toEqual([]);
  });
});

describe('GET /docs', () => {
  it('renders the document with Swagger UI loaded from this server', async () => {
    const page = await fetch(`${t.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(assets.sort()).toEqual([
      '/docs/favicon-32x32.png',
      '/docs/init.js',
      '/docs/swagger-ui-bundle.js',
      '/docs/swagger-ui.css',
    ]);
    const types: Record<string, RegExp> = { '.css': /^text\/css/, '.js': /^text\/javascript/, '.png': /^image\/png/ };
    for (const asset of assets) {
      const response = await fetch(`${t.url}${asset}`);
      expect(response.status, asset).toBe(200);
      expect(response.headers.get('content-type')).toMatch(types[asset.slice(asset.lastIndexOf('.'))] as RegExp);
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    expect(await (await fetch(`${t.url}/docs/init.js`)).text()).toContain("url: '/openapi.json'");
    expect((await fetch(`${t.url}/docs/swagger-ui-bundle.js`)).headers.get('cache-control')).toMatch(/max-age=\d+/);
  });

  it('serves nothing else from the package, whatever the path says', async () => {
    for (const path of [
      '/docs/..%2f',
      '/docs/..%2fpackage.json',
      '/docs/%2e%2e%2f%2e%2e%2fpackage.json',
      '/docs/package.json',
      '/docs/index.html',
      '/docs/..%5cpackage.json',
    ]) {
      const response = await fetch(`${t.url}${path}`, { headers: { accept: 'text/html' } });
      expect(response.status, path).toBe(404);
      await response.arrayBuffer();
    }
  });
});

describe.runIf(haveBrowser)('GET /docs in a browser', () => {
  it('renders every operation without reaching any other server', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const elsewhere: string[] = [];
      const errors: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(t.url) && !request.url().startsWith('data:')) elsewhere.push(request.url());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${t.url}/docs`);
      const clickToCall = page.locator('.opblock', {
        has: page.locator('.opblock-summary-path[data-path="/api/click-to-call"]'),
      });
      await clickToCall.waitFor({ timeout: 15_000 });
      const documented = Object.values<any>(spec.paths).reduce((n, item) => n + Object.keys(item).length, 0);
      expect(await page.locator('.opblock').count()).toBe(documented);
      await clickToCall.locator('.opblock-summary').click();
      await page.getByText('ctc:010').first().waitFor();
      await screenshot(page, 'api-reference');
      expect(elsewhere).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
