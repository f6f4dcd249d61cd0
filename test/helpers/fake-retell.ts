import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { serveOnLoopback } from './loopback.js';
import { publishedRequestSchema } from './openapi.js';

type Json = Record<string, any>;

/** Each route's published operation, whose request body schema the body must satisfy. */
const OPERATIONS: Record<string, [string, string]> = {
  'POST /create-retell-llm': ['post', '/create-retell-llm'],
  'PATCH /update-retell-llm/:id': ['patch', '/update-retell-llm/{llm_id}'],
  'POST /create-agent': ['post', '/create-agent'],
  'PATCH /update-agent/:id': ['patch', '/update-agent/{agent_id}'],
  'POST /v2/create-phone-call': ['post', '/v2/create-phone-call'],
  'PATCH /update-phone-number/:id': ['patch', '/update-phone-number/{phone_number}'],
};

export interface FakeRetell {
  url: string;
  apiKey: string;
  llms: Map<string, Json>;
  agents: Map<string, Json>;
  calls: Map<string, Json>;
  /** The account's phone numbers by number, in Retell's shape (`inbound_agent_id`, `inbound_agents`). */
  phoneNumbers: Map<string, Json>;
  /** The account's voices, as `GET /list-voices` answers them (Retell's VoiceResponse). */
  voices: Json[];
  violations: string[];
  failNext(count: number): void;
  close(): Promise<void>;
}

/** A local Retell on loopback, answering in its shapes and checking requests against its published OpenAPI file. */
export async function startFakeRetell(options: { phoneNumbers?: string[] } = {}): Promise<FakeRetell> {
  const apiKey = `key_${randomBytes(8).toString('hex')}`;
  const llms = new Map<string, Json>();
  const agents = new Map<string, Json>();
  const calls = new Map<string, Json>();
  const violations: string[] = [];
  const phoneNumbers = new Map<string, Json>(
    (options.phoneNumbers ?? []).map((number) => [
      number,
      {
        phone_number: number,
        phone_number_type: 'retell-twilio',
        nickname: `Line ${number.slice(-4)}`,
        inbound_agent_id: null,
        last_modification_timestamp: Date.now(),
      },
    ]),
  );
  const voices: Json[] = [
    {
      voice_id: '11labs-Adrian',
      voice_name: 'Adrian',
      provider: 'elevenlabs',
      accent: 'American',
      gender: 'male',
      age: 'Young',
      preview_audio_url: 'https://retell-utils-public.s3.us-west-2.amazonaws.com/adrian.mp3',
    },
    { voice_id: 'openai-Alloy', voice_name: 'Alloy', provider: 'openai', gender: 'female' },
  ];
  let failures = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as Json) : {};
      const path = (req.url ?? '').split('?')[0] as string;
      const match = /^(\/v2)?\/([a-z-]+)(?:\/([^/]+))?$/.exec(path);
      const action = `${match?.[1] ?? ''}/${match?.[2] ?? ''}`;
      const id = match?.[3];
      const route = `${req.method} ${action}${id ? '/:id' : ''}`;
      const answer = (status: number, payload?: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(payload === undefined ? '' : JSON.stringify(payload));
      };
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        violations.push(`${route}: authorization ${req.headers.authorization}`);
        return answer(401, { error_message: 'Unauthorized' });
      }
      const operation = OPERATIONS[route];
      if (operation) {
        // A schema the reader cannot compile is a violation to see, not a fake that never answers.
        try {
          const validate = publishedRequestSchema('retell', operation[0], operation[1]);
          if (!validate(body)) violations.push(`${route}: ${JSON.stringify(validate.errors)}`);
        } catch (error) {
          violations.push(`${route}: its published schema could not be compiled: ${(error as Error).message}`);
        }
      }
      if (failures > 0) {
        failures--;
        return answer(500, { error_message: 'Internal error (fake)' });
      }
      const now = Date.now();
      switch (route) {
        case 'POST /create-retell-llm': {
          const llm = {
            ...body,
            llm_id: `llm_${randomBytes(6).toString('hex')}`,
            version: 0,
            last_modification_timestamp: now,
          };
          llms.set(llm.llm_id, llm);
          return answer(201, llm);
        }
        case 'PATCH /update-retell-llm/:id':
        case 'PATCH /update-agent/:id': {
          const store = route.includes('llm') ? llms : agents;
          const current = store.get(id as string);
          if (!current) return answer(404, { error_message: 'Not found' });
          const updated = { ...current, ...body, last_modification_timestamp: now };
          store.set(id as string, updated);
          return answer(200, updated);
        }
        case 'GET /v2/list-retell-llms': {
          const limit = Number(new URL(req.url ?? '', 'http://fake').searchParams.get('limit') ?? 1000);
          const items = [...llms.values()];
          return answer(200, { items: items.slice(0, limit), has_more: items.length > limit });
        }
        case 'GET /get-retell-llm/:id': {
          const llm = llms.get(id as string);
          return llm ? answer(200, llm) : answer(404, { error_message: 'Not found' });
        }
        case 'GET /v2/list-phone-numbers': {
          const params = new URL(req.url ?? '', 'http://fake').searchParams;
          const limit = Number(params.get('limit') ?? 50);
          const start = Number(params.get('pagination_key') ?? 0);
          const items = [...phoneNumbers.values()].slice(start, start + limit);
          const more = start + limit < phoneNumbers.size;
          return answer(200, { items, has_more: more, ...(more ? { pagination_key: String(start + limit) } : {}) });
        }
        case 'PATCH /update-phone-number/:id': {
          const number = phoneNumbers.get(decodeURIComponent(id as string));
          if (!number) return answer(404, { error_message: 'Not found' });
          Object.assign(number, body, { last_modification_timestamp: now });
          return answer(200, number);
        }
        case 'POST /create-agent': {
          const agent = {
            ...body,
            agent_id: `agent_${randomBytes(6).toString('hex')}`,
            version: 0,
            last_modification_timestamp: now,
          };
          agents.set(agent.agent_id, agent);
          return answer(201, agent);
        }
        case 'DELETE /delete-agent/:id':
        case 'DELETE /delete-retell-llm/:id': {
          const store = route.includes('llm') ? llms : agents;
          if (!store.delete(id as string)) return answer(404, { error_message: 'Not found' });
          return answer(204);
        }
        case 'POST /v2/create-phone-call': {
          const call = {
            ...body,
            call_type: 'phone_call',
            call_id: `rc_${randomBytes(6).toString('hex')}`,
            agent_id: body.override_agent_id,
            agent_version: 0,
            call_status: 'registered',
            direction: 'outbound',
          };
          calls.set(call.call_id, call);
          return answer(201, call);
        }
        case 'GET /list-voices':
          return answer(200, voices);
        default:
          return answer(404, { error_message: `No route ${route}` });
      }
    });
  });
  const { url, close } = await serveOnLoopback(server);
  return {
    url,
    apiKey,
    llms,
    agents,
    calls,
    phoneNumbers,
    voices,
    violations,
    failNext(count) {
      failures = count;
    },
    close,
  };
}
