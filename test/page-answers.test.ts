import { build } from 'fast-json-stringify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallPage } from '../src/calls/calls.schemas.js';
import { PAGE_CHUNK_CHARACTERS, pageItemSchema } from '../src/lib/page-serializer.js';
import { SHARED_SCHEMAS } from '../src/openapi.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';

// Decision 0100: a list page is serialized item by item and turned into UTF-8 a chunk at a time,
// so that V8 never copies a large page into one string. What the client receives must be what the
// page's own serializer writes, byte for byte, whatever the page's size and characters.
let t: TestApp;
let org: Org;

const shared = Object.fromEntries(SHARED_SCHEMAS.map((schema) => [schema.$id as string, schema]));
/** The whole page's serializer, as Fastify compiled it for the route before decision 0100. */
const serializeWhole = (build as (schema: object, options: object) => (doc: unknown) => string)(CallPage, {
  schema: shared,
});

// Text outside ASCII, Latin-1 and two-byte, with characters JSON escapes: about 2,100 characters a turn.
const line = 'Grüße aus Köln — ありがとうございます, "quoted" \\ and a tab\t. ';
const turns = [
  { role: 'agent', text: line.repeat(40) },
  { role: 'user', text: `${line.repeat(39)}🙂` },
];

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
});
afterAll(() => t.close());

async function raw(path: string) {
  const response = await fetch(`${t.url}${path}`, { headers: org.auth });
  return { response, bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('list pages', () => {
  it('answers a large page in the bytes its serializer writes, with a content-length that counts them', async () => {
    const { apiToken, apiSecret } = await t.agentWithCredentials(org, { simulator: { delayMs: 0, turns } });
    for (let i = 0; i < 8; i++) {
      const placed = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } });
      await t.waitForCall(org, placed.body.callId);
    }

    const { response, bytes } = await raw('/v1/calls?limit=100');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
    const text = bytes.toString('utf8');
    // Several chunks, or the page would have been written as one string and this would prove nothing.
    expect(text.length).toBeGreaterThan(PAGE_CHUNK_CHARACTERS * 2);
    const page = JSON.parse(text);
    expect(page.data).toHaveLength(8);
    expect(page.data[0].transcript.map((turn: { text: string }) => turn.text)).toEqual(turns.map((turn) => turn.text));
    expect(bytes.equals(Buffer.from(serializeWhole(page)))).toBe(true);

    // A small page, and an empty one, are the same bytes too.
    for (const path of ['/v1/calls?limit=1', '/v1/calls?status=queued']) {
      const small = await raw(path);
      expect(small.response.status).toBe(200);
      expect(small.bytes.equals(Buffer.from(serializeWhole(JSON.parse(small.bytes.toString('utf8')))))).toBe(true);
    }
  });

  it("answers a large page to HEAD with the GET's content-length and no body", async () => {
    const get = await raw('/v1/calls?limit=100');
    const head = await fetch(`${t.url}/v1/calls?limit=100`, { method: 'HEAD', headers: org.auth });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(get.bytes.length));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('knows every page the API answers as a page: an object whose first field is its data', () => {
    const pages = SHARED_SCHEMAS.filter((schema) => String(schema.$id).endsWith('Page'));
    expect(pages.length).toBeGreaterThan(5);
    for (const page of pages) expect(pageItemSchema({ $ref: page.$id }, shared), String(page.$id)).toBeDefined();
    expect(pageItemSchema(shared.CallView, shared)).toBeUndefined();
  });
});
