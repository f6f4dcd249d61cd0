/**
 * A local Vapi for the benchmarks, in the benchmark's own process on 127.0.0.1: enough of Vapi's
 * API for an agent to publish (assistants, tools, the account's phone numbers) and for click to
 * call to place calls (`POST /call`). Unlike test/helpers/fake-vapi.ts it checks no schema (that
 * is the tests' job, and would cost the benchmark CPU); it keeps, for every call placed, when the
 * request arrived, so a benchmark can time the path to it on the clock of its own process.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface PlacedCall {
  /** `performance.now()` of this process when the request's body had arrived. */
  arrivedAt: number;
  /** Vapi's id of the call, as answered. */
  id: string;
  /** Our call id (`assistantOverrides.metadata.switchboardCallId`). */
  switchboardCallId: string;
  /** The number called (`customer.number`). */
  to: string;
}

export interface BenchFakeVapi {
  url: string;
  apiKey: string;
  /** Every call placed so far, in the order the requests arrived. */
  calls: PlacedCall[];
  /** Called as each `POST /call` arrives (before it is answered). */
  onCall?: (call: PlacedCall) => void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

export async function startBenchFakeVapi(fromNumber: string): Promise<BenchFakeVapi> {
  const apiKey = `vapi_bench_${randomBytes(6).toString('hex')}`;
  const phoneNumbers = [{ id: 'pn_0', number: fromNumber, provider: 'twilio', orgId: 'org_bench' }];
  const resource = (body: Json) => ({ ...body, id: randomBytes(8).toString('hex'), orgId: 'org_bench' });
  let sequence = 0;
  const fake: BenchFakeVapi = { url: '', apiKey, calls: [], close: async () => {} };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const arrivedAt = performance.now();
      const answer = (status: number, payload: unknown) => {
        const text = JSON.stringify(payload);
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      };
      if (req.headers.authorization !== `Bearer ${apiKey}`) return answer(401, { message: 'Invalid Key' });
      const text = Buffer.concat(chunks).toString('utf8');
      const body = (text ? JSON.parse(text) : {}) as Json;
      const [path = ''] = (req.url ?? '').split('?');
      const [, collection, id] = path.split('/');
      if (req.method === 'POST' && collection === 'call') {
        const overrides = (body.assistantOverrides ?? {}) as { metadata?: { switchboardCallId?: string } };
        const call: PlacedCall = {
          arrivedAt,
          id: `vapi-call-${++sequence}`,
          switchboardCallId: overrides.metadata?.switchboardCallId ?? '',
          to: ((body.customer ?? {}) as { number?: string }).number ?? '',
        };
        fake.calls.push(call);
        fake.onCall?.(call);
        return answer(201, { ...body, id: call.id, status: 'queued', type: 'outboundPhoneCall' });
      }
      if (req.method === 'GET' && collection === 'phone-number' && !id) return answer(200, phoneNumbers);
      if (req.method === 'GET' && !id) return answer(200, []);
      if (req.method === 'POST') return answer(201, resource(body));
      if (req.method === 'PATCH' || req.method === 'DELETE') return answer(200, { ...body, id, orgId: 'org_bench' });
      return answer(404, { message: `No route ${req.method} ${path}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
