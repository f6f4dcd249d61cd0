import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtherProcess, startTestApp, type TestApp } from './helpers/app.js';
import { startProxyToDatabase } from './helpers/tcp-proxy.js';

// Hostile click-to-call traffic is refused without the database (decision 0029): a token never
// issued is refused from the token index, a flood of unknown tokens cannot push known agents out of
// the cache, and the database's failures are logged once per interval, not once per request.

const randomToken = () => `ctc_${randomBytes(32).toString('base64url')}`;

/** `count` click-to-calls with distinct random tokens, `concurrency` at a time; their codes, counted. */
async function flood(t: TestApp, count: number, concurrency: number): Promise<Record<string, number>> {
  const codes: Record<string, number> = {};
  let sent = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < count) {
        sent++;
        const { body } = await t.clickToCall({ token: randomToken(), secret: 'x' });
        codes[body.code] = (codes[body.code] ?? 0) + 1;
      }
    }),
  );
  return codes;
}

describe.runIf(!process.env.TEST_DATABASE_URL)('click-to-call tokens, the embedded database closed', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const t of apps) {
      await t.app.close();
      await t.db.drop().catch(() => {});
    }
  });

  it('refuses a token never issued with ctc:003, without asking the database', async () => {
    const t = await startTestApp();
    apps.push(t);
    const org = await t.signup();
    const agent = await t.createAgent(org);
    const creds = await t.credentials(org, agent.id);
    // One request loads the token index.
    expect((await t.clickToCall({ token: creds.apiToken, secret: 'wrong' })).body.code).toBe('ctc:006');
    await t.db.database.close();
    // Before the index, each was a query, and the closed database made it ctc:002.
    expect(await flood(t, 50, 10)).toEqual({ 'ctc:003': 50 });
  });

  it('keeps known agents cached through a flood of more unknown tokens than the cache holds', async () => {
    const t = await startTestApp();
    apps.push(t);
    const org = await t.signup();
    const agent = await t.createAgent(org);
    const creds = await t.credentials(org, agent.id);
    expect((await t.clickToCall({ token: creds.apiToken, secret: 'wrong' })).body.code).toBe('ctc:006');
    // The cache holds 10,000 agents; unknown tokens used to take their places.
    expect(await flood(t, 10_050, 50)).toEqual({ 'ctc:003': 10_050 });
    await t.db.database.close();
    // Still known without the database: the signature is checked, not ctc:002.
    expect((await t.clickToCall({ token: creds.apiToken, secret: 'wrong' })).body.code).toBe('ctc:006');
  }, 300_000);

  it('logs a failing database once per interval, with how many were left out, not once per request', async () => {
    const lines: string[] = [];
    const t = await startTestApp({}, undefined, {
      logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } },
    });
    apps.push(t);
    const org = await t.signup();
    const agent = await t.createAgent(org);
    const creds = await t.credentials(org, agent.id);
    expect((await t.clickToCall({ token: creds.apiToken, secret: 'wrong' })).body.code).toBe('ctc:006');
    await t.db.database.close();
    for (let i = 0; i < 20; i++) {
      // The agent is cached; counting the request for its rate limit needs the database.
      expect((await t.clickToCall({ token: creds.apiToken, secret: creds.apiSecret })).body.code).toBe('ctc:002');
    }
    const failures = lines.map((line) => JSON.parse(line)).filter((l) => /click-to-call: failed/.test(l.msg ?? ''));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ level: 50, suppressed: 0 });
    expect(failures[0].msg).toMatch(/^click-to-call: failed counting the request \(logged once per 10 s\)$/);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('click-to-call tokens across processes on one PostgreSQL', () => {
  const masterKey = randomBytes(32);
  let t: TestApp;
  const closers: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    t = await startTestApp({}, masterKey);
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await t.close();
  });

  /** A second process on the same database (its own pool, change feed and caches), and its click-to-call's code. */
  async function otherProcess(url = t.db.url as string) {
    const other = await startOtherProcess(url, masterKey);
    closers.push(other.close);
    return async (token: string) => {
      const response = await fetch(`${other.origin}/api/click-to-call`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'api-key': token, signature: 'wrong' },
        body: '{}',
      });
      return ((await response.json()) as { code: string }).code;
    };
  }

  it('a token issued by one process works at once in another that refused unknown tokens', async () => {
    const otherCall = await otherProcess();
    // The other process has its token index loaded, and has refused tokens.
    for (let i = 0; i < 20; i++) expect(await otherCall(randomToken())).toBe('ctc:003');

    const org = await t.signup();
    for (let round = 0; round < 5; round++) {
      const agent = await t.createAgent(org);
      const creds = await t.credentials(org, agent.id);
      // At once: the signature is checked (ctc:006), the token is known.
      expect(await otherCall(creds.apiToken)).toBe('ctc:006');
      const rotated = await t.request('POST', `/v1/agents/${agent.id}/credentials/rotate`, { headers: org.auth });
      expect(rotated.status).toBe(200);
      expect(await otherCall(rotated.body.apiToken)).toBe('ctc:006');
    }
  });

  it('a token is not refused by a process that hears of it late, in a flood of made-up tokens (decision 0092)', async () => {
    const proxy = await startProxyToDatabase(t.db.url as string);
    closers.push(() => proxy.close());
    const otherCall = await otherProcess(proxy.via(t.db.url as string));
    expect(await otherCall(randomToken())).toBe('ctc:003'); // its token index is loaded
    // Everything the database sends the other process now comes late, its notifications too.
    proxy.delayReplies(300);

    const org = await t.signup();
    const agent = await t.createAgent(org);
    const creds = await t.credentials(org, agent.id);
    // Made-up tokens arrive first (they used to take every confirmation a token could have had).
    const flood = Array.from({ length: 30 }, () => otherCall(randomToken()));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await otherCall(creds.apiToken)).toBe('ctc:006');
    expect(new Set(await Promise.all(flood))).toEqual(new Set(['ctc:003']));
  });
});
