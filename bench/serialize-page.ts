/**
 * What a calls-list page costs to turn into bytes, by the characters its text holds (docs/benchmarks.md,
 * "2026-12-04: what a page's characters cost it"). `npx tsx bench/serialize-page.ts`: no database, no server.
 *
 * A page of 20 ended calls shaped as `GET /v1/calls` answers them (the ten-million benchmark's
 * transcripts, two tool runs on every other call, one delivered outcome each), serialized by the
 * route's own schema (fast-json-stringify over the shared schemas, as Fastify compiles it). Then
 * what Node's HTTP server does with a string answer: its byte length (for `content-length`) and its
 * UTF-8 bytes. The same page four ways: its transcripts as recorded (one em dash a call), in plain
 * ASCII, in Latin-1 (German), and in Japanese. The last two columns: the page from its object to its
 * bytes as one string (as before decision 0100) and item by item (`src/lib/page-serializer.ts`, as
 * the routes do now), checked to be the same bytes first.
 */
import { build } from 'fast-json-stringify';
import { CallPage, CallView } from '../src/calls/calls.schemas.js';
import { pageSerializer } from '../src/lib/page-serializer.js';
import { SHARED_SCHEMAS } from '../src/openapi.js';
import { transcripts } from './ten-million.js';

const RUNS = 400;

function call(n: number, transcript: unknown[]) {
  const at = (s: number) => new Date(Date.UTC(2026, 10, 1, 12, 0, s)).toISOString();
  const tool = (k: number) => ({
    id: `tinv_bench${String(n * 10 + k).padStart(20, '0')}`,
    toolId: 'tool_bench',
    name: k === 1 ? 'lookup_order' : 'book_visit',
    arguments: { order: `A-${n}` },
    request: {
      method: 'POST',
      url: 'https://api.example.com/orders/lookup',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ order: `A-${n}` }),
    },
    response: { status: 200, body: '{"status":"shipped","eta":"2026-01-09"}' },
    result: '{"status":"shipped","eta":"2026-01-09"}',
    error: null,
    latencyMs: 859,
    at: at(30 + k),
  });
  const id = `call_bench${String(n).padStart(16, '0')}`;
  return {
    id,
    agentId: 'agt_bench',
    provider: 'simulator',
    providerCallId: `sim_bench${n}`,
    direction: 'outbound',
    from: '+14155550100',
    to: `+1291516${String(9000 + n)}`,
    status: 'ended',
    outcome: 'NOT_INTERESTED',
    endedReason: 'customer-ended-call',
    error: null,
    variables: { name: 'Ada', order: `A-${n}` },
    collectedData: { email: 'ada@example.com', owner: true, appointment: '2026-01-08T16:30:00Z', monthlyBill: 91 },
    summary: 'The customer confirmed the address, owns the house and booked an assessment visit.',
    recordingUrl: `https://recordings.example.com/bench/${n}.wav`,
    warnings: [],
    transcript,
    toolInvocations: n % 2 ? [tool(1), tool(2)] : [],
    deliveries: [
      {
        id: `dlv_bench${n}`,
        integrationId: 'intg_bench',
        callId: id,
        webhookId: `msg_bench${n}`,
        state: 'delivered',
        attempts: [
          {
            at: at(60),
            status: 200,
            latencyMs: 44,
            error: null,
            errorCode: null,
            responseExcerpt: '{"received":true}',
          },
        ],
        attemptCount: 1,
        nextAttemptAt: null,
        failureReason: null,
        payloadTruncated: false,
        createdAt: at(60),
        updatedAt: at(61),
      },
    ],
    createdAt: at(0),
    startedAt: at(0),
    answeredAt: at(5),
    endedAt: at(60),
    durationSeconds: 55,
    campaignId: null,
    contactId: null,
  };
}

type Turns = { role: string; text: string; at: string }[];
/** As pg hands a jsonb column over: UTF-8 bytes decoded, then JSON.parse (V8 picks each string's width). */
const asRead = (turns: Turns[]): Turns[] => JSON.parse(Buffer.from(JSON.stringify(turns)).toString('utf8'));
const recorded = asRead(transcripts().map((text) => JSON.parse(text) as Turns));
const retold = (replace: (text: string) => string) =>
  asRead(recorded.map((turns) => turns.map((turn) => ({ ...turn, text: replace(turn.text) }))));
const pages = {
  'as recorded (one em dash a call)': recorded,
  'ASCII only': retold((text) => text.replace(/[^ -~]/g, '-')),
  'Latin-1 (German: ä, ö, ü, ß)': retold((text) => `${text} Grüße aus Köln, schöne Straße.`),
  'Japanese (two-byte)': retold((text) => `${text} ありがとうございます。`),
};

const externalSchemas = Object.fromEntries(SHARED_SCHEMAS.map((schema) => [schema.$id as string, schema]));
// fast-json-stringify's types do not take TypeBox's schemas; Fastify hands it the same objects untyped.
const compile = (schema: object) =>
  (build as (schema: object, options: never) => unknown)(schema, { schema: externalSchemas } as never) as (
    doc: unknown,
  ) => string;
const serialize = compile(CallPage);
/** What the route does since decision 0100: the page item by item, its UTF-8 a chunk at a time. */
const serializeByItem = pageSerializer(serialize, compile(CallView));

/** Mean µs of `op` on a fresh `make()` each time (the value is made outside the timing). */
function timed<T>(make: () => T, op: (value: T) => unknown): number {
  let total = 0n;
  for (let i = 0; i < RUNS + 50; i++) {
    const value = make();
    const start = process.hrtime.bigint();
    op(value);
    if (i >= 50) total += process.hrtime.bigint() - start;
  }
  return Number(total / BigInt(RUNS)) / 1000;
}

/** What Node's HTTP response does with an answer: its byte length (`content-length`), then its bytes. */
function send(answer: string | Buffer): Buffer {
  if (typeof answer !== 'string') return answer;
  Buffer.byteLength(answer);
  return Buffer.from(answer, 'utf8');
}

console.log(`Node ${process.version}; means of ${RUNS} pages each\n`);
console.log(
  '| page text | UTF-8 KB | serialize µs | byte length of the string µs | UTF-8 bytes of the string µs | one string, to bytes µs | item by item, to bytes µs |',
);
console.log('|---|---|---|---|---|---|---|');
for (const [label, texts] of Object.entries(pages)) {
  const page = {
    data: Array.from({ length: 20 }, (_, n) => call(n, texts[n % texts.length] ?? [])),
    nextCursor: 'x',
    total: 20,
    totalCapped: false,
  };
  const bytes = Buffer.byteLength(serialize(page));
  if (!send(serializeByItem(page)).equals(send(serialize(page)))) throw new Error(`${label}: the two ways differ`);
  const serializeUs = timed(
    () => page,
    (value) => serialize(value),
  );
  const lengthUs = timed(
    () => serialize(page),
    (json) => Buffer.byteLength(json),
  );
  const encodeUs = timed(
    () => serialize(page),
    (json) => Buffer.from(json, 'utf8'),
  );
  const wholeUs = timed(
    () => page,
    (value) => send(serialize(value)),
  );
  const byItemUs = timed(
    () => page,
    (value) => send(serializeByItem(value)),
  );
  const us = [serializeUs, lengthUs, encodeUs, wholeUs, byItemUs].map((value) => value.toFixed(0)).join(' | ');
  console.log(`| ${label} | ${(bytes / 1024).toFixed(0)} | ${us} |`);
}
