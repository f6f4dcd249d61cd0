import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';
import { until } from './helpers/wait.js';

// The do-not-call list (issue 19, decision 0047): numbers added one at a time or by CSV upload,
// refused by click to call, POST /v1/calls and the dashboard's test call with ctc:013, and added by
// the outcomes an agent names; and the campaign fields of a call.
let t: TestApp;
let org: Org;
let stranger: Org;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestApp();
  org = await t.signup();
  stranger = await t.signup();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

type Answer = Awaited<ReturnType<TestApp['request']>>;

const add = (body: unknown, as: Org = org) => t.request('POST', '/v1/suppressions', { headers: as.auth, body });

const upload = (csv: string | Buffer, headers: Record<string, string> = {}, as: Org = org) =>
  t.request('POST', '/v1/suppressions', {
    headers: { ...as.auth, 'content-type': 'text/csv', ...headers },
    body: typeof csv === 'string' ? csv : csv.toString('utf8'),
  });

const list = async (query = '', as: Org = org) => {
  const answer = await t.request('GET', `/v1/suppressions${query}`, { headers: as.auth });
  expect(answer.status).toBe(200);
  return answer.body as { data: any[]; nextCursor: string | null; total: number };
};

const listed = async (phone: string, as: Org = org) =>
  (await list(`?phone=${encodeURIComponent(phone)}`, as)).data.filter((s) => s.phone === phone);

const total = async (as: Org = org) => (await list('', as)).total;

/** A unique valid number of a range no other test of this file uses (+1 212 555 01xx, +1 646 …). */
let own = 0;
const freshPhone = () => `+1212555${String(1000 + own++).padStart(4, '0')}`;

const problems = (answer: Answer) => answer.body.details.map((d: { path: string; message: string }) => d.path);

describe('adding, listing and removing numbers', () => {
  it('adds a number (201), and again leaves it as it was (200, the first reason kept)', async () => {
    const phone = freshPhone();
    const first = await add({ phone, reason: 'asked on the phone' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^dnc_/),
      phone,
      reason: 'asked on the phone',
      source: 'api',
      callId: null,
      createdAt: expect.any(String),
    });
    const again = await add({ phone, reason: 'another reason' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const none = await add({ phone: freshPhone() });
    expect(none.status).toBe(201);
    expect(none.body.reason).toBeNull();
    expect(await listed(phone)).toEqual([first.body]);
  });

  it('lists newest first, by phone prefix (with or without +), in pages with a total', async () => {
    const prefix = '+1303555';
    const phones = ['+13035550101', '+13035550102', '+13035550103'];
    const added = [];
    for (const phone of phones) added.push((await add({ phone })).body);
    const page = await list(`?phone=${encodeURIComponent(prefix)}&limit=2`);
    expect(page.total).toBe(3);
    expect(page.data.map((s) => s.phone)).toEqual([phones[2], phones[1]]);
    expect(page.nextCursor).not.toBeNull();
    const next = await list(`?phone=13035550&limit=2&cursor=${page.nextCursor}`);
    expect(next.data.map((s) => s.phone)).toEqual([phones[0]]);
    expect(next.nextCursor).toBeNull();
    expect((await list('?phone=1999')).total).toBe(0);
    const bad = await t.request('GET', '/v1/suppressions?phone=%2B1-303', { headers: org.auth });
    expect(bad.status).toBe(422);
    expect(problems(bad)).toEqual(['query.phone']);
  });

  it('removes a number (204); a second time, or an unknown id, is 404', async () => {
    const phone = freshPhone();
    const { body } = await add({ phone });
    const removed = await t.request('DELETE', `/v1/suppressions/${body.id}`, { headers: org.auth });
    expect(removed.status).toBe(204);
    expect(await listed(phone)).toEqual([]);
    const again = await t.request('DELETE', `/v1/suppressions/${body.id}`, { headers: org.auth });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('api:not_found');
  });

  it('refuses a number that is not E.164, a long reason and unknown fields, all in one 422, storing nothing', async () => {
    const before = await total();
    for (const phone of ['4155550123', '+1 415 555 0123', '+1', '+19999999999', '']) {
      const refused = await add({ phone });
      expect(refused.status, phone).toBe(422);
      expect(refused.body.details).toEqual([
        { path: '$.phone', message: 'must be a valid phone number in E.164 format, e.g. +14155550123' },
      ]);
    }
    const several = await add({ phone: 'nope', reason: 'x'.repeat(501), extra: 1 });
    expect(several.status).toBe(422);
    expect(problems(several).sort()).toEqual(['$.extra', '$.phone', '$.reason']);
    expect((await add({ phone: 14155550123 })).status).toBe(422);
    expect((await add({})).body.details).toEqual([{ path: '$.phone', message: 'is required' }]);
    expect(await total()).toBe(before);
  });

  it('refuses hostile bodies precisely: nesting, NUL, not an object, not JSON, another content type', async () => {
    const before = await total();
    // Sent as text: JSON.stringify itself would overflow on it.
    const nested = `${'{"a":'.repeat(5000)}"deep"${'}'.repeat(5000)}`;
    const deep = await t.request('POST', '/v1/suppressions', {
      headers: org.auth,
      body: `{"phone":"${freshPhone()}","reason":${nested}}`,
    });
    expect(deep.status).toBe(422);
    const nul = await add({ phone: freshPhone(), reason: 'a\u0000b' });
    expect(nul.status).toBe(422);
    expect(problems(nul)).toEqual(['$.reason']);
    const array = await add([{ phone: freshPhone() }]);
    expect(array.status).toBe(422);
    const broken = await t.request('POST', '/v1/suppressions', { headers: org.auth, body: '{"phone": ' });
    expect(broken.status).toBe(422);
    expect(broken.body.details[0].path).toBe('$');
    const plain = await t.request('POST', '/v1/suppressions', {
      headers: { ...org.auth, 'content-type': 'text/plain' },
      body: 'phone\n+14155550123\n',
    });
    expect(plain.status).toBe(422);
    expect(plain.body.details).toEqual([
      { path: '$', message: 'Send JSON as application/json, or a CSV file as text/csv' },
    ]);
    const nothing = await t.request('POST', '/v1/suppressions', { headers: org.auth });
    expect(nothing.status).toBe(422);
    expect(nothing.body.details[0].message).toBe('Send JSON as application/json, or a CSV file as text/csv');
    const latin = await upload('phone\n+12125559999\n', { 'content-type': 'text/csv; charset=iso-8859-1' });
    expect(latin.status).toBe(422);
    expect(latin.body.details[0].message).toMatch(/UTF-8/);
    expect(await total()).toBe(before);
  });

  it('needs an API key or a session', async () => {
    const answer = await t.request('POST', '/v1/suppressions', { body: { phone: freshPhone() } });
    expect(answer.status).toBe(401);
    expect((await t.request('GET', '/v1/suppressions')).status).toBe(401);
  });
});

describe('CSV upload', () => {
  it('reads a BOM, any-case headers, quoted fields, CRLF, blank lines; reports bad rows by their line', async () => {
    const [a, b, c, d] = [freshPhone(), freshPhone(), freshPhone(), freshPhone()];
    const listedAlready = (await add({ phone: d, reason: 'kept' })).body;
    const csv = [
      'Name,PHONE,Reason', // 1
      `Ada,${a},"moved, no longer a lead"`, // 2
      '', // 3
      `"Bob","${b}","said ""never""`, // 4
      'over two lines"', // 5
      'Cy,not-a-number,x', // 6
      `Dee,${d},ignored`, // 7
      `Eve,${a},twice in the file`, // 8
      'Flo,,no phone', // 9
      `Gus, ${c} ,`, // 10
      'Hal,+19999999999,', // 11
    ].join('\r\n');
    const answer = await upload(`\ufeff${csv}\r\n`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      received: 8,
      added: 3,
      alreadyListed: 2,
      errors: [
        { line: 6, message: 'phone "not-a-number" must be a valid phone number in E.164 format, e.g. +14155550123' },
        { line: 9, message: 'phone is empty' },
        { line: 11, message: 'phone "+19999999999" must be a valid phone number in E.164 format, e.g. +14155550123' },
      ],
    });
    expect((await listed(a))[0].reason).toBe('moved, no longer a lead');
    expect((await listed(b))[0].reason).toBe('said "never"\r\nover two lines');
    expect((await listed(c))[0]).toMatchObject({ phone: c, reason: null, source: 'api' });
    expect(await listed(d)).toEqual([listedAlready]);
  });

  it('counts lines the same with LF, and refuses a reason over 500 characters or with NUL on its line', async () => {
    const [a, b, c] = [freshPhone(), freshPhone(), freshPhone()];
    const csv = `phone,reason\n${a},"one\ntwo\nthree"\n${b},${'r'.repeat(501)}\n${c},a\u0000b\n`;
    const answer = await upload(csv);
    expect(answer.body).toEqual({
      received: 3,
      added: 1,
      alreadyListed: 0,
      errors: [
        { line: 5, message: 'reason is 501 characters: at most 500' },
        { line: 6, message: expect.stringMatching(/^reason /) },
      ],
    });
    expect(await listed(b)).toEqual([]);
  });

  it('refuses a file without a phone column, or an empty one, whole (422): nothing is stored', async () => {
    const before = await total();
    const phone = freshPhone();
    const noPhone = await upload(`number,reason\n${phone},x\n`);
    expect(noPhone.status).toBe(422);
    expect(noPhone.body.details).toEqual([
      {
        path: '$',
        message:
          'The header row has no phone column (its columns: number, reason): the first line must name the columns, e.g. phone,reason',
      },
    ]);
    const empty = await upload('');
    expect(empty.status).toBe(422);
    expect(empty.body.details[0].message).toMatch(/^The file is empty/);
    const headerOnly = await upload('reason\n');
    expect(headerOnly.status).toBe(422);
    const quoteFirst = await upload('"phone\n+12125550000\n');
    expect(quoteFirst.status).toBe(422);
    expect(await total()).toBe(before);
  });

  it('stops at text that is not CSV, keeping the rows before it and saying where', async () => {
    const [a, b] = [freshPhone(), freshPhone()];
    const answer = await upload(`phone,reason\n${a},fine\n${b},"never closed\n+12125550001,x\n`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ received: 1, added: 1, alreadyListed: 0 });
    expect(answer.body.errors).toEqual([
      {
        line: 3,
        message: 'not CSV from here (a quote opened here is never closed): the rest of the file was not read',
      },
    ]);
    expect(await listed(a)).toHaveLength(1);
    expect(await listed(b)).toHaveLength(0);
  });

  it('stops at a field over 64 KiB, saying where', async () => {
    const [a, b, c] = [freshPhone(), freshPhone(), freshPhone()];
    const answer = await upload(`phone,notes\n${a},short\n${b},${'x'.repeat(70_000)}\n${c},short\n`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      received: 1,
      added: 1,
      alreadyListed: 0,
      errors: [{ line: 3, message: 'not CSV from here (a field is over 64 KiB): the rest of the file was not read' }],
    });
    expect(await listed(c)).toHaveLength(0);
  });

  it('lists the first 1000 row errors and counts the rest', async () => {
    const rows = Array.from({ length: 1500 }, (_, i) => `bad${i}`);
    const answer = await upload(`phone\n${rows.join('\n')}\n`);
    expect(answer.status).toBe(200);
    expect(answer.body.received).toBe(1500);
    expect(answer.body.errors).toHaveLength(1000);
    expect(answer.body.errors[999].line).toBe(1001);
    expect(answer.body.errorsOmitted).toBe(500);
  });

  it('adds thousands of rows in one upload, and again finds them all listed', async () => {
    const phones = Array.from({ length: 2500 }, (_, i) => `+1718555${String(i).padStart(4, '0')}`);
    const csv = `phone\n${phones.join('\n')}\n`;
    const first = await upload(csv);
    expect(first.body).toEqual({ received: 2500, added: 2500, alreadyListed: 0, errors: [] });
    const again = await upload(csv);
    expect(again.body).toEqual({ received: 2500, added: 0, alreadyListed: 2500, errors: [] });
    expect((await list('?phone=%2B1718555')).total).toBe(2500);
  });

  it('refuses a file over 32 MiB before reading it: nothing is stored', async () => {
    const before = await total();
    const row = `${freshPhone()},${'x'.repeat(400)}\n`;
    const big = `phone,reason\n${row.repeat(Math.ceil((33 * 1024 * 1024) / row.length))}`;
    const answer = await upload(big);
    expect(answer.status).toBe(422);
    expect(answer.body.details[0].message).toMatch(/over 32 MiB/);
    expect(await total()).toBe(before);
  });
});

describe('ctc:013: a listed number is not called', () => {
  it('by click to call, POST /v1/calls or the test call; no call is recorded', async () => {
    const phone = freshPhone();
    await add({ phone });
    const { agent, apiToken, apiSecret } = await t.agentWithCredentials(org);
    const ctc = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } });
    expect(ctc.status).toBe(403);
    expect(ctc.body).toEqual({
      success: false,
      code: 'ctc:013',
      message: 'Number is on the do-not-call list',
      requestId: expect.any(String),
    });
    const api = await t.request('POST', '/v1/calls', { headers: org.auth, body: { agentId: agent.id, phone } });
    expect(api.status).toBe(403);
    expect(api.body.code).toBe('api:forbidden');
    expect(api.body.message).toBe('Number is on the do-not-call list');
    expect(api.body.details).toEqual([
      { path: '$.phone', message: "is on the organization's do-not-call list", code: 'ctc:013' },
    ]);
    const test = await t.request('POST', `/v1/agents/${agent.id}/test-call`, { headers: org.auth, body: { phone } });
    expect(test.status).toBe(403);
    expect(test.body.code).toBe('ctc:013');
    const calls = await t.request('GET', `/v1/calls?agentId=${agent.id}`, { headers: org.auth });
    expect(calls.body.total).toBe(0);
  });

  it('is answered after the body check: a bad body is ctc:009 even to a listed number', async () => {
    const phone = freshPhone();
    await add({ phone });
    const { apiToken, apiSecret } = await t.agentWithCredentials(org);
    const answer = await t.clickToCall({
      token: apiToken,
      secret: apiSecret,
      body: { phone, variables: { systemPrompt: 'x' } },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('ctc:009');
  });

  // The list is read by the statement that records the call (decision 0056). That statement is a
  // batched insert for an agent with nothing else to decide, and a transaction for one with
  // maxConcurrentCalls or a request with an Idempotency-Key: both must refuse a listed number first.
  const WRITE_PATHS = [
    { path: 'batched insert', settings: {}, headers: () => ({}) },
    {
      path: 'transaction (maxConcurrentCalls, Idempotency-Key)',
      settings: { maxConcurrentCalls: 1 },
      headers: () => ({ 'idempotency-key': `dnc-${freshPhone()}` }),
    },
  ];

  for (const { path, settings, headers } of WRITE_PATHS) {
    it(`is answered before a call in progress: a busy listed number is ctc:013, not ctc:007 (${path})`, async () => {
      const phone = freshPhone();
      const { agent, apiToken, apiSecret } = await t.agentWithCredentials(org, {
        ...settings,
        simulator: { delayMs: 60_000 },
      });
      const call = () => t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone }, headers: headers() });
      const open = await call();
      expect(open.status).toBe(200);
      const busy = await call();
      expect(busy.body.code).toBe('ctc:007');
      await add({ phone });
      const refused = await call();
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('ctc:013');
      // The open call is left alone; the agent goes, its call with it at the sweep.
      await t.request('DELETE', `/v1/agents/${agent.id}`, { headers: org.auth });
    });
  }

  it('is read fresh by the prepared insert: numbers listed after many calls, one by one or by the thousand, are refused', async () => {
    // Click to call's insert is a prepared statement (decision 0058): with PostgreSQL, after five
    // runs its plan may be kept. What the list holds must still be read at every call.
    const { apiToken, apiSecret } = await t.agentWithCredentials(org);
    const call = (phone: string) => t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } });
    for (let i = 0; i < 8; i++) expect((await call(freshPhone())).status).toBe(200);
    const one = freshPhone();
    await add({ phone: one });
    expect((await call(one)).body.code).toBe('ctc:013');
    const many = Array.from({ length: 2000 }, () => freshPhone());
    const uploaded = await upload(`phone\n${many.join('\n')}\n`);
    expect(uploaded.status).toBe(200);
    for (const phone of [many[0], many[1999]] as string[]) {
      const refused = await call(phone);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('ctc:013');
    }
    expect((await call(freshPhone())).status).toBe(200);
  });

  it('leaves an Idempotency-Key unused when the number is listed: the same key places the call once it is removed', async () => {
    const phone = freshPhone();
    const { body } = await add({ phone });
    const { apiToken, apiSecret } = await t.agentWithCredentials(org);
    const call = () =>
      t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone }, headers: { 'idempotency-key': phone } });
    expect((await call()).body.code).toBe('ctc:013');
    await t.request('DELETE', `/v1/suppressions/${body.id}`, { headers: org.auth });
    const answer = await call();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('idempotent-replayed')).toBeNull();
    await t.waitForCall(org, answer.body.callId);
  });

  it('calls the number again once it is removed from the list', async () => {
    const phone = freshPhone();
    const { body } = await add({ phone });
    const { apiToken, apiSecret } = await t.agentWithCredentials(org);
    expect((await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } })).status).toBe(403);
    await t.request('DELETE', `/v1/suppressions/${body.id}`, { headers: org.auth });
    const answer = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } });
    expect(answer.status).toBe(200);
    await t.waitForCall(org, answer.body.callId);
  });

  for (const { path, settings, headers } of WRITE_PATHS) {
    it(`fails closed: when the list cannot be read, the call is refused with ctc:008 and not recorded (${path})`, async () => {
      const phone = freshPhone();
      // No rate limit: the statement that records the call is the first thing the request asks of the
      // database once the agent is known (from the cache, after the first call below).
      const { apiToken, apiSecret } = await t.agentWithCredentials(org, { rateLimitPerMinute: null, ...settings });
      const warm = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: freshPhone() } });
      expect(warm.status).toBe(200);
      await t.waitForCall(org, warm.body.callId);
      // The list's table is away, as a query against a broken database would fail.
      const { db } = t.db.database;
      await db.execute(sql`alter table suppressions rename to suppressions_away`);
      try {
        const answer = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone }, headers: headers() });
        expect(answer.status).toBe(500);
        expect(answer.body.code).toBe('ctc:008');
      } finally {
        await db.execute(sql`alter table suppressions_away rename to suppressions`);
      }
      const calls = await t.request('GET', `/v1/calls?phone=${encodeURIComponent(phone)}`, { headers: org.auth });
      expect(calls.body.total).toBe(0);
      const again = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone }, headers: headers() });
      expect(again.status).toBe(200);
      await t.waitForCall(org, again.body.callId);
    });
  }
});

describe('numbers added by outcomes', () => {
  it("adds the number of a call that ends with one of its agent's doNotCallOutcomes", async () => {
    const phone = freshPhone();
    const { agent, apiToken, apiSecret } = await t.agentWithCredentials(org, {
      outcomes: ['SOLD', 'DO_NOT_CALL'],
      doNotCallOutcomes: ['DO_NOT_CALL'],
      simulator: { outcome: { status: 'DO_NOT_CALL' } },
    });
    expect(agent.doNotCallOutcomes).toEqual(['DO_NOT_CALL']);
    const answer = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } });
    expect(answer.status).toBe(200);
    const call = await t.waitForCall(org, answer.body.callId);
    expect(call.outcome).toBe('DO_NOT_CALL');
    expect(await listed(phone)).toEqual([
      {
        id: expect.stringMatching(/^dnc_/),
        phone,
        reason: 'outcome DO_NOT_CALL',
        source: 'outcome',
        callId: call.id,
        createdAt: expect.any(String),
      },
    ]);
    const again = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } });
    expect(again.body.code).toBe('ctc:013');
  });

  it("lists the caller's number when an incoming call ends with one", async () => {
    const caller = freshPhone();
    const agent = await t.createAgent(org, {
      type: 'inbound',
      outcomes: ['DO_NOT_CALL'],
      doNotCallOutcomes: ['DO_NOT_CALL'],
      simulator: { outcome: { status: 'DO_NOT_CALL' } },
    });
    const started = await t.request('POST', `/v1/agents/${agent.id}/simulate-inbound`, {
      headers: org.auth,
      body: { from: caller },
    });
    expect(started.status).toBe(201);
    const call = await t.waitForCall(org, started.body.id);
    expect(await listed(caller)).toEqual([
      expect.objectContaining({ phone: caller, source: 'outcome', reason: 'outcome DO_NOT_CALL', callId: call.id }),
    ]);
    expect(await listed(call.to)).toEqual([]);
  });

  it('adds nothing for another outcome, or for an agent that names none (the default [])', async () => {
    const phone = freshPhone();
    const named = await t.agentWithCredentials(org, {
      outcomes: ['SOLD', 'DO_NOT_CALL'],
      doNotCallOutcomes: ['DO_NOT_CALL'],
      simulator: { outcome: { status: 'SOLD' } },
    });
    const plain = await t.agentWithCredentials(org, {
      outcomes: ['SOLD', 'DO_NOT_CALL'],
      simulator: { outcome: { status: 'DO_NOT_CALL' } },
    });
    expect(plain.agent.doNotCallOutcomes).toEqual([]);
    for (const { apiToken, apiSecret } of [named, plain]) {
      const answer = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } });
      await t.waitForCall(org, answer.body.callId);
    }
    expect(await listed(phone)).toEqual([]);
  });

  it('keeps a number listed already as it was', async () => {
    const phone = freshPhone();
    const first = (await add({ phone, reason: 'by hand' })).body;
    await t.request('DELETE', `/v1/suppressions/${first.id}`, { headers: org.auth });
    const { apiToken, apiSecret } = await t.agentWithCredentials(org, {
      outcomes: ['DO_NOT_CALL'],
      doNotCallOutcomes: ['DO_NOT_CALL'],
      simulator: { outcome: { status: 'DO_NOT_CALL' } },
    });
    const answer = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } });
    await t.waitForCall(org, answer.body.callId);
    const byOutcome = await listed(phone);
    expect(byOutcome).toHaveLength(1);
    // Listed again by hand: the outcome's row stays.
    expect((await add({ phone, reason: 'by hand' })).body).toEqual(byOutcome[0]);
  });

  it('checks doNotCallOutcomes: outcome words, at most 20, each once', async () => {
    const bad = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'Bad', doNotCallOutcomes: ['do not call'] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.details).toEqual([
      {
        path: '$.doNotCallOutcomes[0]',
        message: 'Use capitals, digits and _, starting with a capital (at most 64), e.g. SOLD',
      },
    ]);
    const many = Array.from({ length: 21 }, (_, i) => `O${i}`);
    const tooMany = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'Bad', doNotCallOutcomes: many },
    });
    expect(tooMany.status).toBe(422);
    const twice = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'Bad', doNotCallOutcomes: ['X', 'X'] },
    });
    expect(twice.status).toBe(422);
    const agent = await t.createAgent(org);
    const patched = await t.request('PATCH', `/v1/agents/${agent.id}`, {
      headers: org.auth,
      body: { doNotCallOutcomes: ['DO_NOT_CALL', 'WRONG_PERSON'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.doNotCallOutcomes).toEqual(['DO_NOT_CALL', 'WRONG_PERSON']);
    const read = await t.request('GET', `/v1/agents/${agent.id}`, { headers: org.auth });
    expect(read.body.doNotCallOutcomes).toEqual(['DO_NOT_CALL', 'WRONG_PERSON']);
  });
});

describe("numbers added by a campaign's outcomes", () => {
  it("adds the number of a campaign's call that ends with one of the campaign's doNotCallOutcomes (here by the sweep)", async () => {
    const phone = freshPhone();
    // Ended by the duration sweep (FAILED), whose statement lists numbers as the provider's end does.
    const { agent, apiToken, apiSecret } = await t.agentWithCredentials(org, {
      maxCallDurationSeconds: 1,
      simulator: { delayMs: 3_600_000 },
    });
    const campaign = await t.request('POST', '/v1/campaigns', {
      headers: org.auth,
      body: { name: 'Leads', agentId: agent.id, doNotCallOutcomes: ['FAILED'] },
    });
    expect(campaign.status).toBe(201);
    const answer = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } });
    expect(answer.status).toBe(200);
    // The campaign's own calls are placed by its scheduler; this one is made the campaign's by hand.
    await t.db.database.db.execute(
      sql`update calls set campaign_id = ${campaign.body.id}, contact_id = 'cct_x' where id = ${answer.body.callId}`,
    );
    const call = await t.waitForCall(org, answer.body.callId);
    expect(call).toMatchObject({ outcome: 'FAILED', campaignId: campaign.body.id, contactId: 'cct_x' });
    expect(await listed(phone)).toEqual([
      expect.objectContaining({ phone, source: 'outcome', reason: 'outcome FAILED', callId: call.id }),
    ]);
    const byCampaign = await t.request('GET', `/v1/calls?campaignId=${campaign.body.id}`, { headers: org.auth });
    expect(byCampaign.body.data.map((c: { id: string }) => c.id)).toEqual([call.id]);
    expect(byCampaign.body.total).toBe(1);
    const theirs = await t.request('GET', `/v1/calls?campaignId=${campaign.body.id}`, { headers: stranger.auth });
    expect(theirs.body.total).toBe(0);
  });
});

describe('tenancy', () => {
  it("another organization's number is 404 to delete, not in its list, and not refused for it", async () => {
    const phone = freshPhone();
    const mine = (await add({ phone })).body;
    const removed = await t.request('DELETE', `/v1/suppressions/${mine.id}`, { headers: stranger.auth });
    expect(removed.status).toBe(404);
    expect(await listed(phone, stranger)).toEqual([]);
    expect(await listed(phone)).toEqual([mine]);
    const theirs = await t.agentWithCredentials(stranger);
    const answer = await t.clickToCall({ token: theirs.apiToken, secret: theirs.apiSecret, body: { phone } });
    expect(answer.status).toBe(200);
    await t.waitForCall(stranger, answer.body.callId);
    // Their own listing of the same number is theirs alone.
    const own = await add({ phone, reason: 'theirs' }, stranger);
    expect(own.status).toBe(201);
    expect(own.body.id).not.toBe(mine.id);
    expect(await listed(phone)).toEqual([mine]);
  });
});

describe('campaign fields of a call', () => {
  it('are null on an ordinary call, in its view and its webhook payload', async () => {
    const agent = await t.createAgent(org);
    await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
      headers: org.auth,
      body: { url: `${receiver.url}/hook` },
    });
    const { apiToken, apiSecret } = await t.credentials(org, agent.id);
    const answer = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } });
    const call = await t.waitForCall(org, answer.body.callId);
    expect(call).toMatchObject({ campaignId: null, contactId: null });
    const listedCall = (await t.request('GET', `/v1/calls?agentId=${agent.id}`, { headers: org.auth })).body.data[0];
    expect(listedCall).toMatchObject({ id: call.id, campaignId: null, contactId: null });
    await until('the outcome webhook', () => receiver.requests.some((r) => JSON.parse(r.body).callId === call.id));
    const payload = JSON.parse(receiver.requests.find((r) => JSON.parse(r.body).callId === call.id)!.body);
    expect(payload).toMatchObject({ campaignId: null, contactId: null });
  });

  it('filters the calls list by campaign: an unknown campaign has none', async () => {
    const agent = await t.createAgent(org);
    const { apiToken, apiSecret } = await t.credentials(org, agent.id);
    const answer = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } });
    await t.waitForCall(org, answer.body.callId);
    const none = await t.request('GET', '/v1/calls?campaignId=cmp_unknown', { headers: org.auth });
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ data: [], nextCursor: null, total: 0, totalCapped: false });
    const tooLong = await t.request('GET', `/v1/calls?campaignId=${'x'.repeat(101)}`, { headers: org.auth });
    expect(tooLong.status).toBe(422);
  });
});
