import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { serveOnLoopback } from './loopback.js';
import { publishedRequestSchema, publishedSchema } from './openapi.js';

type Json = Record<string, any>;

/** The published request schema each route's body must satisfy. */
const REQUEST_SCHEMAS: Record<string, string> = {
  'POST /assistant': 'CreateAssistantDTO',
  'PATCH /assistant/:id': 'UpdateAssistantDTO',
  'POST /tool': 'CreateFunctionToolDTO',
  'PATCH /tool/:id': 'UpdateFunctionToolDTO',
  'POST /call': 'CreateCallDTO',
};

export interface FakeVapi {
  url: string;
  apiKey: string;
  assistants: Map<string, Json>;
  tools: Map<string, Json>;
  calls: Map<string, Json>;
  /** The account's phone numbers (`pn_0`, `pn_1`, …), with the `assistantId` each answers with. */
  phoneNumbers: Json[];
  /** Every request received: method, route, body. */
  requests: { method: string; route: string; body: Json | undefined }[];
  /** Requests whose body broke the published schema, or that came without the API key. */
  violations: string[];
  /** Adds a tool as if made in Vapi's dashboard; returns its id. */
  seedTool(tool: Json): string;
  /**
   * The next `count` requests answer 500 with an error body; with `route` (`PATCH /phone-number/:id`),
   * only requests to it, so a background request elsewhere cannot use the failure up.
   */
  failNext(count: number, route?: string): void;
  close(): Promise<void>;
}

/**
 * A local Vapi on loopback: it keeps assistants, tools and calls in memory, answers in Vapi's
 * shapes, and checks every request against Vapi's published OpenAPI schemas and its bearer key.
 */
export async function startFakeVapi(options: { phoneNumbers?: string[] } = {}): Promise<FakeVapi> {
  const apiKey = `vapi_test_${randomBytes(6).toString('hex')}`;
  const assistants = new Map<string, Json>();
  const tools = new Map<string, Json>();
  const calls = new Map<string, Json>();
  const requests: FakeVapi['requests'] = [];
  const violations: string[] = [];
  const phoneNumbers = (options.phoneNumbers ?? ['+14155550100']).map((number, i) => ({
    id: `pn_${i}`,
    number,
    provider: 'twilio',
    orgId: 'org_fake',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  }));
  let failures = 0;
  let failingRoute: string | undefined;
  const resource = (body: Json) => ({
    id: randomBytes(8).toString('hex'),
    orgId: 'org_fake',
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    ...body,
  });

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as Json) : undefined;
      const [path] = (req.url ?? '').split('?') as [string];
      const [, collection, id] = path.split('/');
      const route = `${req.method} /${collection}${id ? '/:id' : ''}`;
      requests.push({ method: req.method ?? '', route, body });
      const answer = (status: number, payload?: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(payload === undefined ? '' : JSON.stringify(payload));
      };
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        violations.push(`${route}: authorization ${req.headers.authorization}`);
        return answer(401, { message: 'Invalid Key' });
      }
      const schema = REQUEST_SCHEMAS[route];
      if (schema) {
        const validate = publishedSchema('vapi', schema);
        if (!validate(body)) violations.push(`${route}: ${JSON.stringify(validate.errors)}`);
      }
      if (route === 'PATCH /phone-number/:id') checkPhoneNumberUpdate(body, violations);
      if (failures > 0 && (failingRoute === undefined || failingRoute === route)) {
        failures--;
        return answer(500, { message: 'Internal server error (fake)' });
      }
      const store = collection === 'assistant' ? assistants : collection === 'tool' ? tools : calls;
      switch (route) {
        case 'GET /phone-number':
          return answer(200, phoneNumbers);
        case 'GET /tool':
          return answer(200, [...tools.values()]);
        case 'GET /phone-number/:id':
        case 'PATCH /phone-number/:id': {
          const number = phoneNumbers.find((n) => n.id === id);
          if (!number) return answer(404, { message: 'Not found' });
          if (req.method === 'PATCH' && body?.provider !== number.provider) {
            violations.push(`${route}: provider ${body?.provider} is not the number's (${number.provider})`);
          }
          if (req.method === 'PATCH') Object.assign(number, body, { updatedAt: new Date().toISOString() });
          return answer(200, number);
        }
        case 'POST /assistant':
        case 'POST /tool': {
          const created = resource(body ?? {});
          store.set(created.id, created);
          return answer(201, created);
        }
        case 'POST /call': {
          const created = resource({ ...body, status: 'queued', type: 'outboundPhoneCall' });
          store.set(created.id, created);
          return answer(201, created);
        }
        case 'PATCH /assistant/:id':
        case 'PATCH /tool/:id': {
          const current = store.get(id as string);
          if (!current) return answer(404, { message: 'Not found' });
          const updated = { ...current, ...body, updatedAt: new Date().toISOString() };
          store.set(id as string, updated);
          return answer(200, updated);
        }
        case 'DELETE /assistant/:id':
        case 'DELETE /tool/:id': {
          const current = store.get(id as string);
          if (!current) return answer(404, { message: 'Not found' });
          store.delete(id as string);
          return answer(200, current);
        }
        default:
          return answer(404, { message: `No route ${route}` });
      }
    });
  });
  const { url, close } = await serveOnLoopback(server);
  return {
    url,
    apiKey,
    assistants,
    tools,
    calls,
    phoneNumbers,
    requests,
    violations,
    seedTool(tool) {
      const created = resource(tool);
      tools.set(created.id, created);
      return created.id;
    },
    failNext(count, route) {
      failures = count;
      failingRoute = route;
    },
    close,
  };
}

/**
 * `PATCH /phone-number/{id}` against its published body (one of the update DTOs, by `provider`),
 * which must name the number's provider. `assistantId: null` is how Vapi clears a number's assistant
 * (its API reference documents `string | null`; the published file types it as a string): it is
 * checked as null or a string, and the rest of the body against the file (docs/decisions/0038).
 */
function checkPhoneNumberUpdate(body: Json | undefined, violations: string[]): void {
  const route = 'PATCH /phone-number/:id';
  const { assistantId, ...rest } = body ?? {};
  if (assistantId !== undefined && assistantId !== null && typeof assistantId !== 'string') {
    violations.push(`${route}: assistantId must be a string or null`);
  }
  const checked = assistantId === null ? rest : (body ?? {});
  const validate = publishedRequestSchema('vapi', 'patch', '/phone-number/{id}');
  if (!validate(checked)) violations.push(`${route}: ${JSON.stringify(validate.errors)}`);
  if (typeof checked.provider !== 'string') violations.push(`${route}: the body names no provider`);
}
