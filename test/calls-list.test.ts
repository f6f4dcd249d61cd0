import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/lib/ids.js';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';

// Finding calls (issue 18 §2, decision 0041): GET /v1/calls's filters, sort, cursors under every
// sort and `total`, and `total` on the agents, tools and deliveries lists. Calls are written straight
// into the database, so their creation times, durations and numbers are exactly what each case needs;
// one real call through POST /v1/calls shows a call as the app records it is found the same way.
let t: TestApp;
let org: Org;
let stranger: Org;
let agentA: { id: string };
let agentB: { id: string };

interface Seeded {
  id: string;
  agentId: string;
  direction: 'outbound' | 'inbound';
  from: string | null;
  to: string;
  status: string;
  outcome: string | null;
  durationSeconds: number | null;
  createdAt: string;
}

async function insertCall(o: Org, call: Omit<Seeded, 'id'> & { id?: string }): Promise<Seeded> {
  const id = call.id ?? newId('call');
  await t.db.database.db.execute(sql`
    insert into calls (id, organization_id, agent_id, provider, direction, from_number, to_number, status, outcome,
      variables, collected_data, transcript, created_at, duration_seconds, deadline_at)
    values (${id}, ${o.organization.id}, ${call.agentId}, 'simulator', ${call.direction}, ${call.from}, ${call.to},
      ${call.status}, ${call.outcome}, '{}', '{}', '[]', ${call.createdAt}::timestamptz, ${call.durationSeconds},
      now() + interval '1 day')`);
  return { ...call, id };
}

const get = async (path: string, as: Org = org) => t.request('GET', path, { headers: as.auth });

/** Every page of a listing, following nextCursor; each page's total alongside. */
async function allPages(path: string, as: Org = org): Promise<{ ids: string[]; totals: number[]; pages: number }> {
  const ids: string[] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const answer = await get(cursor ? `${path}${separator}cursor=${encodeURIComponent(cursor)}` : path, as);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    ids.push(...answer.body.data.map((call: { id: string }) => call.id));
    totals.push(answer.body.total);
    cursor = answer.body.nextCursor;
    pages++;
    if (pages > 200) throw new Error('no last page');
  } while (cursor);
  return { ids, totals, pages };
}

const T0 = Date.parse('2026-01-10T00:00:00.000Z');
const at = (hours: number, extraMicros = 0) =>
  `${new Date(T0 + hours * 3_600_000).toISOString().slice(0, 19)}.${String(extraMicros).padStart(6, '0')}Z`;

// The first organization's calls: two agents, both directions, several outcomes and numbers.
let seeded: Seeded[] = [];

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
  stranger = await t.signup();
  agentA = await t.createAgent(org, { name: 'Seller', type: 'outbound' });
  agentB = await t.createAgent(org, { name: 'Front desk', type: 'outbound' });
  const a = agentA.id;
  const b = agentB.id;
  const rows: Omit<Seeded, 'id'>[] = [
    {
      agentId: a,
      direction: 'outbound',
      from: '+15555550100',
      to: '+14155550001',
      status: 'ended',
      outcome: 'SOLD',
      durationSeconds: 30,
      createdAt: at(0),
    },
    {
      agentId: a,
      direction: 'outbound',
      from: '+15555550100',
      to: '+14155550002',
      status: 'ended',
      outcome: 'NOT_INTERESTED',
      durationSeconds: 30,
      createdAt: at(1),
    },
    {
      agentId: a,
      direction: 'inbound',
      from: '+442071838750',
      to: '+15555550100',
      status: 'ended',
      outcome: 'SOLD',
      durationSeconds: 45,
      createdAt: at(2),
    },
    {
      agentId: b,
      direction: 'outbound',
      from: '+16505550000',
      to: '+16505550003',
      status: 'in_progress',
      outcome: null,
      durationSeconds: null,
      createdAt: at(3),
    },
    {
      agentId: b,
      direction: 'inbound',
      from: '+14155559999',
      to: '+16505550000',
      status: 'ended',
      outcome: 'SOLD',
      durationSeconds: 10,
      createdAt: at(4),
    },
    // A simulator call from before decision 0032: no from number stored, shown as the simulated caller id.
    {
      agentId: b,
      direction: 'outbound',
      from: null,
      to: '+14155550004',
      status: 'queued',
      outcome: null,
      durationSeconds: null,
      createdAt: at(5),
    },
    // Two calls a microsecond apart: since and until compare to the microsecond.
    {
      agentId: b,
      direction: 'outbound',
      from: '+16505550000',
      to: '+33612345678',
      status: 'ended',
      outcome: 'NO_ANSWER',
      durationSeconds: 0,
      createdAt: at(6, 1),
    },
    {
      agentId: b,
      direction: 'outbound',
      from: '+16505550000',
      to: '+33612345679',
      status: 'ended',
      outcome: 'NO_ANSWER',
      durationSeconds: 0,
      createdAt: at(6, 2),
    },
  ];
  // Inserted out of order: the list's order must come from the sort, not from how rows were written.
  for (const row of [...rows].reverse()) seeded.push(await insertCall(org, row));
  seeded = seeded.reverse();
});
afterAll(async () => {
  await t.close();
});

/** The seeded calls the predicate keeps, newest first (the default sort). */
const expected = (keep: (call: Seeded) => boolean) =>
  seeded
    .filter(keep)
    .sort((x, y) => (x.createdAt < y.createdAt ? 1 : x.createdAt > y.createdAt ? -1 : x.id < y.id ? 1 : -1))
    .map((call) => call.id);

describe('GET /v1/calls: filters', () => {
  const fromOf = (call: Seeded) => call.from ?? '+15555550100';
  const cases: [string, (call: Seeded) => boolean][] = [
    ['', () => true],
    ['agentId=A', (c) => c.agentId === agentA.id],
    ['status=ended', (c) => c.status === 'ended'],
    ['outcome=SOLD', (c) => c.outcome === 'SOLD'],
    ['direction=inbound', (c) => c.direction === 'inbound'],
    ['direction=outbound', (c) => c.direction === 'outbound'],
    [`since=${at(2)}`, (c) => c.createdAt >= at(2)],
    [`until=${at(2)}`, (c) => c.createdAt < at(2)],
    ['phone=%2B1415', (c) => c.to.startsWith('+1415') || fromOf(c).startsWith('+1415')],
    ['phone=1650', (c) => c.to.startsWith('+1650') || fromOf(c).startsWith('+1650')],
    ['phone=%2B44', (c) => fromOf(c).startsWith('+44')],
    ['phone=%2B1555', (c) => fromOf(c).startsWith('+1555') || c.to.startsWith('+1555')],
    ['phone=%2B14155550002', (c) => c.to === '+14155550002'],
    [
      'agentId=A&outcome=SOLD&direction=outbound',
      (c) => c.agentId === agentA.id && c.outcome === 'SOLD' && c.direction === 'outbound',
    ],
    [
      `outcome=SOLD&since=${at(1)}&until=${at(4)}`,
      (c) => c.outcome === 'SOLD' && c.createdAt >= at(1) && c.createdAt < at(4),
    ],
    [
      'status=ended&phone=%2B1415&agentId=B',
      (c) =>
        c.status === 'ended' && c.agentId === agentB.id && (c.to.startsWith('+1415') || fromOf(c).startsWith('+1415')),
    ],
  ];

  for (const [query, keep] of cases) {
    it(`?${query || '(no filter)'}: the matching calls, newest first, and their total`, async () => {
      const q = query.replace('agentId=A', `agentId=${agentA.id}`).replace('agentId=B', `agentId=${agentB.id}`);
      const want = expected(keep);
      expect(want.length).toBeGreaterThan(0);
      const answer = await get(`/v1/calls?limit=100&${q}`);
      expect(answer.status).toBe(200);
      expect(answer.body.data.map((call: { id: string }) => call.id)).toEqual(want);
      expect(answer.body.total).toBe(want.length);
      // The total is the filter's, not the page's.
      const first = await get(`/v1/calls?limit=1&${q}`);
      expect(first.body.data).toHaveLength(1);
      expect(first.body.total).toBe(want.length);
    });
  }

  it('narrows by each filter to exactly these calls (spelled out, not computed)', async () => {
    const ids = async (q: string) => (await get(`/v1/calls?limit=100&${q}`)).body.data.map((c: { id: string }) => c.id);
    const [c0, c1, c2, c3, c4, c5, c6, c7] = seeded.map((call) => call.id);
    expect(await ids('outcome=SOLD')).toEqual([c4, c2, c0]);
    expect(await ids('direction=inbound')).toEqual([c4, c2]);
    // The old simulator call without a stored number is found by the number the API shows.
    expect(await ids('phone=%2B15555550100')).toEqual([c5, c2, c1, c0]);
    expect(await ids('phone=%2B3361234567')).toEqual([c7, c6]);
    expect(await ids(`agentId=${agentB.id}&status=in_progress`)).toEqual([c3]);
    expect(await ids('outcome=NOT_A_REAL_OUTCOME')).toEqual([]);
  });

  it('since is inclusive and until exclusive, to the microsecond', async () => {
    const [, , , , , , early, late] = seeded;
    const window = async (q: string) =>
      (await get(`/v1/calls?limit=100&${q}`)).body.data.map((c: { id: string }) => c.id);
    expect(await window(`since=${early?.createdAt}`)).toEqual([late?.id, early?.id]);
    expect(await window(`since=${late?.createdAt}`)).toEqual([late?.id]);
    expect(await window(`since=${early?.createdAt}&until=${late?.createdAt}`)).toEqual([early?.id]);
    // An offset other than Z names the same instant.
    expect(await window(`since=${encodeURIComponent('2026-01-10T07:00:00.000001+01:00')}`)).toEqual([
      late?.id,
      early?.id,
    ]);
    const empty = await get(`/v1/calls?since=${at(7)}`);
    expect(empty.body).toEqual({ data: [], nextCursor: null, total: 0, totalCapped: false });
  });

  it('finds a call placed through POST /v1/calls by its number, direction and status', async () => {
    const own = await t.signup();
    const caller = await t.createAgent(own, { name: 'Real', type: 'outbound' });
    const placed = await t.request('POST', '/v1/calls', {
      headers: own.auth,
      body: { agentId: caller.id, phone: '+14155550777' },
    });
    expect(placed.status).toBe(201);
    const ended = await t.waitForCall(own, placed.body.id);
    const found = await get(
      `/v1/calls?phone=%2B1415555077&direction=outbound&status=ended&outcome=${ended.outcome}`,
      own,
    );
    expect(found.body).toMatchObject({ total: 1, data: [{ id: placed.body.id, to: '+14155550777' }] });
    expect((await get('/v1/calls?direction=inbound', own)).body.total).toBe(0);
    expect((await get(`/v1/calls?since=${encodeURIComponent(ended.createdAt)}`, own)).body.total).toBe(1);
    expect((await get(`/v1/calls?until=${encodeURIComponent(ended.createdAt)}`, own)).body.total).toBe(0);
  });
});

describe('GET /v1/calls: sort and cursors', () => {
  let sorter: Org;
  let rows: Seeded[] = [];

  beforeAll(async () => {
    sorter = await t.signup();
    const agent = await t.createAgent(sorter, { name: 'Sorted', type: 'outbound' });
    // 23 calls: durations with many equal values and some not ended (null), and creation times
    // shared by several calls, so both sorts page through ties.
    const durations = [20, null, 10, 20, 20, 5, null, 10, 20, 10, 5, null, 20, 10, 20, 5, 10, null, 20, 10, 20, 5, 10];
    for (const [i, durationSeconds] of durations.entries())
      rows.push(
        await insertCall(sorter, {
          agentId: agent.id,
          direction: 'outbound',
          from: '+15555550100',
          to: `+1415555${String(1000 + i)}`,
          status: durationSeconds === null ? 'in_progress' : 'ended',
          outcome: durationSeconds === null ? null : 'COMPLETED',
          durationSeconds,
          createdAt: at(Math.floor(i / 4)),
        }),
      );
    rows = [...rows];
  });

  /** The model order: by the key, nulls last either way, then by id in the same direction. */
  const modelOrder = (sort: string) => {
    const descending = sort.startsWith('-');
    const byDuration = sort.endsWith('durationSeconds');
    return [...rows]
      .sort((x, y) => {
        if (byDuration && x.durationSeconds !== y.durationSeconds) {
          if (x.durationSeconds === null) return 1;
          if (y.durationSeconds === null) return -1;
          return (x.durationSeconds - y.durationSeconds) * (descending ? -1 : 1);
        }
        if (!byDuration && x.createdAt !== y.createdAt)
          return (x.createdAt < y.createdAt ? -1 : 1) * (descending ? -1 : 1);
        return (x.id < y.id ? -1 : 1) * (descending ? -1 : 1);
      })
      .map((call) => call.id);
  };

  for (const sort of ['-createdAt', 'createdAt', '-durationSeconds', 'durationSeconds']) {
    for (const limit of [1, 4, 7]) {
      it(`sort=${sort}, ${limit} a page: every call once, in order, across pages with equal keys`, async () => {
        const listed = await allPages(`/v1/calls?sort=${sort}&limit=${limit}`, sorter);
        expect(listed.ids).toEqual(modelOrder(sort));
        expect(new Set(listed.ids).size).toBe(rows.length);
        expect(listed.pages).toBe(Math.ceil(rows.length / limit));
        expect(new Set(listed.totals)).toEqual(new Set([rows.length]));
      });
    }
  }

  it('shows durations as sorted, calls not ended last in both directions', async () => {
    const durations = async (sort: string) =>
      (await get(`/v1/calls?sort=${sort}&limit=100`, sorter)).body.data.map(
        (c: { durationSeconds: number | null }) => c.durationSeconds,
      );
    const ascending = await durations('durationSeconds');
    expect(ascending.slice(0, 5)).toEqual([5, 5, 5, 5, 10]);
    expect(ascending.slice(-4)).toEqual([null, null, null, null]);
    const descending = await durations('-durationSeconds');
    expect(descending.slice(0, 2)).toEqual([20, 20]);
    expect(descending.slice(-5)).toEqual([5, null, null, null, null]);
  });

  it('pages a filtered, sorted list with the filter kept', async () => {
    const tens = rows.filter((call) => call.durationSeconds === 10).map((call) => call.id);
    const listed = await allPages(`/v1/calls?sort=-durationSeconds&limit=2&status=ended&phone=%2B1415555`, sorter);
    expect(listed.ids.filter((id) => tens.includes(id))).toEqual([...tens].sort().reverse());
    expect(listed.ids).toHaveLength(rows.filter((call) => call.durationSeconds !== null).length);
  });

  it('refuses a cursor made for another sort, or one it never made, with 422 naming query.cursor', async () => {
    const page = await get('/v1/calls?sort=-durationSeconds&limit=2', sorter);
    const cursor = page.body.nextCursor as string;
    const other = await get(`/v1/calls?sort=createdAt&limit=2&cursor=${cursor}`, sorter);
    expect(other.status).toBe(422);
    expect(other.body.details).toEqual([
      {
        path: 'query.cursor',
        message: 'was returned for sort=-durationSeconds, not sort=createdAt: start again without a cursor',
      },
    ]);
    // The default sort is -createdAt: the cursor needs its sort named again.
    expect((await get(`/v1/calls?limit=2&cursor=${cursor}`, sorter)).status).toBe(422);
    const made = (parts: unknown) => Buffer.from(JSON.stringify(parts)).toString('base64url');
    const id = 'call_00000000000000000000000000';
    const forged: [string, string][] = [
      // A cursor of the API before sorts: a bare id.
      ['-createdAt', Buffer.from(id).toString('base64url')],
      ['-createdAt', made(['-createdAt', 'yesterday', id])],
      ['createdAt', made(['createdAt', 1736467200000, id])],
      ['-durationSeconds', made(['-durationSeconds', '1; drop table calls', id])],
      ['durationSeconds', made(['durationSeconds', 12, id])],
      ['-createdAt', made(['-createdAt', '2026-01-10T00:00:00.000000Z', "x' or 1=1"])],
      ['-createdAt', made(['-createdAt', '2026-01-10T00:00:00.000000Z', id, 'more'])],
      ['-createdAt', made({ sort: '-createdAt' })],
      ['-createdAt', 'not base64 at all!'],
    ];
    for (const [sort, bad] of forged) {
      const answer = await get(`/v1/calls?sort=${sort}&cursor=${encodeURIComponent(bad)}`, sorter);
      expect(answer.status).toBe(422);
      expect(answer.body.details).toEqual([{ path: 'query.cursor', message: 'is not a cursor this API returned' }]);
    }
  });
});

describe('GET /v1/calls: bad values', () => {
  const refused: [string, string][] = [
    ['outcome=sold', 'query.outcome'],
    ['outcome=SOLD%27%20OR%201%3D1', 'query.outcome'],
    ['direction=sideways', 'query.direction'],
    ['since=yesterday', 'query.since'],
    ['until=2026-01-10', 'query.until'],
    ['since=2026-01-10T00:00:00', 'query.since'],
    [`since=${at(2)}&until=${at(1)}`, 'query.until'],
    [`since=${at(2)}&until=${at(2)}`, 'query.until'],
    ['phone=%2B1-555', 'query.phone'],
    ['phone=1555%25', 'query.phone'],
    ['phone=_', 'query.phone'],
    ['phone=', 'query.phone'],
    [`phone=${'1'.repeat(16)}`, 'query.phone'],
    ['phone=%2B%2B1', 'query.phone'],
    ['sort=name', 'query.sort'],
    ['sort=-createdAt,id', 'query.sort'],
    ['status=done', 'query.status'],
    ['limit=0', 'query.limit'],
    ['color=red', 'query.color'],
  ];
  for (const [query, path] of refused) {
    it(`?${query}: 422 naming ${path}`, async () => {
      const answer = await get(`/v1/calls?${query}`);
      expect(answer.status).toBe(422);
      expect(answer.body.code).toBe('api:validation');
      expect(answer.body.details.map((d: { path: string }) => d.path)).toContain(path);
    });
  }

  it('names every bad field at once', async () => {
    const answer = await get('/v1/calls?direction=up&phone=abc&sort=size');
    expect(answer.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'query.direction',
      'query.phone',
      'query.sort',
    ]);
  });
});

describe('GET /v1/calls: tenancy', () => {
  it("another organization's filter finds none of these calls, and its total counts only its own", async () => {
    expect((await get('/v1/calls')).body.total).toBe(seeded.length);
    const theirs = await get(`/v1/calls?agentId=${agentA.id}`, stranger);
    expect(theirs.body).toEqual({ data: [], nextCursor: null, total: 0, totalCapped: false });
    expect((await get('/v1/calls?phone=%2B1415', stranger)).body.total).toBe(0);
    expect((await get(`/v1/calls/${seeded[0]?.id}`, stranger)).status).toBe(404);
  });

  it("a cursor from one organization's list shows the other organization nothing of it", async () => {
    const page = await get('/v1/calls?limit=2');
    const followed = await get(`/v1/calls?limit=2&cursor=${page.body.nextCursor}`, stranger);
    expect(followed.status).toBe(200);
    expect(followed.body).toEqual({ data: [], nextCursor: null, total: 0, totalCapped: false });
  });
});

describe('total on the other lists', () => {
  it('agents: the live agents of the organization, not the page', async () => {
    const own = await t.signup();
    const made = [];
    for (const name of ['One', 'Two', 'Three']) made.push(await t.createAgent(own, { name, type: 'outbound' }));
    expect((await get('/v1/agents?limit=2', own)).body).toMatchObject({ total: 3, data: [{}, {}] });
    expect((await t.request('DELETE', `/v1/agents/${made[0].id}`, { headers: own.auth })).status).toBe(204);
    const after = await allPages('/v1/agents?limit=1', own);
    expect(after.ids).toHaveLength(2);
    expect(after.totals).toEqual([2, 2]);
    expect((await get('/v1/agents', stranger)).body.total).toBe(0);
  });

  it('tools: the tools of the organization', async () => {
    const own = await t.signup();
    for (const name of ['lookup_one', 'lookup_two', 'lookup_three'])
      expect(
        (
          await t.request('POST', '/v1/tools', {
            headers: own.auth,
            body: { name, method: 'POST', url: 'https://tools.example.com/hook' },
          })
        ).status,
      ).toBe(201);
    expect((await get('/v1/tools?limit=1', own)).body).toMatchObject({ total: 3, data: [{}] });
    expect((await get('/v1/tools', stranger)).body.total).toBe(0);
  });

  it('deliveries: the deliveries the filter keeps', async () => {
    const own = await t.signup();
    const agent = await t.createAgent(own, { name: 'Hooked', type: 'outbound' });
    const integration = await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
      headers: own.auth,
      body: { url: 'https://hooks.example.com/x' },
    });
    expect(integration.status).toBe(201);
    const call = await insertCall(own, {
      agentId: agent.id,
      direction: 'outbound',
      from: '+15555550100',
      to: '+14155550123',
      status: 'ended',
      outcome: 'SOLD',
      durationSeconds: 12,
      createdAt: at(0),
    });
    // Settled deliveries (not pending): the worker leaves them alone, so the counts hold still.
    for (const state of ['delivered', 'delivered', 'failed'])
      await t.db.database.db.execute(sql`
        insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state)
        values (${newId('dlv')}, ${own.organization.id}, ${integration.body.id}, ${call.id}, ${newId('msg')}, ${state})`);
    expect((await get('/v1/deliveries?limit=1', own)).body).toMatchObject({ total: 3, data: [{}] });
    expect((await get('/v1/deliveries?state=failed', own)).body.total).toBe(1);
    expect((await get(`/v1/deliveries?callId=${call.id}&state=delivered&limit=1`, own)).body.total).toBe(2);
    expect((await get(`/v1/deliveries?integrationId=${integration.body.id}`, stranger)).body).toEqual({
      data: [],
      nextCursor: null,
      total: 0,
      totalCapped: false,
    });
  });
});

// Decision 0053: the calls list counts at most 10,000 matching calls, so its total costs a bounded
// read on an organization with millions; above that, `total` is 10,000 and `totalCapped` is true.
describe('GET /v1/calls total, capped at 10,000', () => {
  let big: Org;
  let busy: { id: string };
  let quiet: { id: string };

  beforeAll(async () => {
    big = await t.signup();
    busy = await t.createAgent(big, { name: 'Busy', type: 'outbound' });
    quiet = await t.createAgent(big, { name: 'Quiet', type: 'outbound' });
    // 10,000 ended calls of one agent and 1 in progress of another: one statement, not 10,001 requests.
    await t.db.database.db.execute(sql`
      insert into calls (id, organization_id, agent_id, provider, direction, to_number, status, variables,
        collected_data, transcript, created_at, deadline_at)
      select 'call_cap' || lpad(i::text, 18, '0'), ${big.organization.id}, ${busy.id}, 'simulator', 'outbound',
        '+1415555' || lpad(i::text, 4, '0'), 'ended', '{}', '{}', '[]',
        timestamptz '2026-01-10T00:00:00Z' + i * interval '1 second', now() + interval '1 day'
      from generate_series(1, 10000) i`);
    await insertCall(big, {
      agentId: quiet.id,
      direction: 'outbound',
      from: '+15555550100',
      to: '+14155550999',
      status: 'in_progress',
      outcome: null,
      durationSeconds: null,
      createdAt: at(0),
    });
  }, 60_000);

  it('answers 10,000 and totalCapped above 10,000 matching calls', async () => {
    const answer = await get('/v1/calls?limit=2', big);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ total: 10_000, totalCapped: true });
    expect(answer.body.data).toHaveLength(2);
  });

  it('answers the exact count, not capped, at 10,000 and below', async () => {
    expect((await get(`/v1/calls?limit=1&agentId=${busy.id}`, big)).body).toMatchObject({
      total: 10_000,
      totalCapped: false,
    });
    expect((await get(`/v1/calls?agentId=${busy.id}&status=ended&since=2026-01-10T02:00:00Z`, big)).body).toMatchObject(
      {
        total: 10_000 - 7199,
        totalCapped: false,
      },
    );
    expect((await get('/v1/calls?status=in_progress', big)).body).toMatchObject({ total: 1, totalCapped: false });
    expect((await get(`/v1/calls?agentId=${quiet.id}&status=ended`, big)).body).toMatchObject({
      data: [],
      total: 0,
      totalCapped: false,
    });
  });
});
