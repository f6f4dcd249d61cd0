import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_REDACTION } from '../src/lib/log-redaction.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';

/*
 * The common click-to-call request is answered before Fastify (decision 0105); the rest by the
 * Fastify route. A URL with a query ("…/click-to-call?via=fastify") is the route's, so each request
 * below is sent both ways, and the two must answer and log alike: same status, headers and body
 * (ids aside), the same log line field for field, counted in the same metrics.
 */

const lines: Record<string, unknown>[] = [];
let t: TestApp;
let org: Org;

/** An app whose log lines go to `lines`. */
function startLoggedApp(env: Record<string, string> = {}): Promise<TestApp> {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return startTestApp(env, undefined, { logger: { level: 'info', stream, ...LOG_REDACTION } });
}

beforeAll(async () => {
  t = await startLoggedApp();
  org = await t.signup();
});
afterAll(() => t.close());

type Answer = Awaited<ReturnType<TestApp['clickToCall']>>;
const DIRECT = '/api/click-to-call';
const THROUGH_FASTIFY = '/api/click-to-call?via=fastify';

/** What must be the same both ways: status, header names and values, body, ids masked. */
function shape(answer: Answer) {
  const mask = (text: string) => text.replace(/\b(req|call)_[A-Za-z0-9]+/g, '$1_…');
  const headers = [...answer.headers.entries()]
    .filter(([name]) => name !== 'date')
    .map(([name, value]) => [name, mask(value)]);
  return { status: answer.status, headers, body: JSON.parse(mask(JSON.stringify(answer.body))) };
}

/** The request's lines, its id, time, port and URL's query aside. */
async function linesOf(answer: Answer) {
  const requestId = answer.headers.get('x-request-id');
  await new Promise((resolve) => setTimeout(resolve, 20));
  return lines
    .filter((line) => line.reqId === requestId)
    .map((line): Record<string, unknown> => {
      const { time, reqId, responseTime, callId, req, ...rest } = line;
      const { remotePort, url, ...request } = (req ?? {}) as Record<string, unknown>;
      return {
        ...rest,
        ...(req ? { req: { ...request, url: String(url).replace(/\?.*$/, '') } } : {}),
        // The fields that differ from one request to the next: only their types are compared.
        varying: Object.fromEntries(
          Object.entries({ time, reqId, responseTime, callId, remotePort }).map(([key, value]) => [key, typeof value]),
        ),
      };
    });
}

/** Sends `send` the direct way, then through Fastify, and checks both were answered where they should be. */
async function bothWays(send: (path: string) => Promise<Answer>, app = t): Promise<[Answer, Answer]> {
  const before = app.app.directClickToCalls();
  const direct = await send(DIRECT);
  expect(app.app.directClickToCalls()).toBe(before + 1);
  const routed = await send(THROUGH_FASTIFY);
  expect(app.app.directClickToCalls()).toBe(before + 1);
  return [direct, routed];
}

describe('POST /api/click-to-call before Fastify (decision 0105)', () => {
  it('answers and logs a call started as the route does', async () => {
    const { apiToken, apiSecret } = await t.agentWithCredentials(org);
    const [direct, routed] = await bothWays((path) =>
      t.clickToCall({
        token: apiToken,
        secret: apiSecret,
        body: { phone: nextPhone(), variables: { name: 'Ada' } },
        path,
      }),
    );
    expect(direct.status).toBe(200);
    expect(direct.body).toMatchObject({ success: true, status: 'queued', callId: expect.stringMatching(/^call_/) });
    expect(shape(direct)).toEqual(shape(routed));
    const [directLines, routedLines] = [await linesOf(direct), await linesOf(routed)];
    expect(directLines).toEqual([
      expect.objectContaining({
        msg: 'request completed',
        level: 30,
        res: { statusCode: 200 },
        req: expect.objectContaining({ method: 'POST', url: DIRECT, remoteAddress: '127.0.0.1' }),
        varying: { time: 'number', reqId: 'string', responseTime: 'number', callId: 'string', remotePort: 'number' },
      }),
    ]);
    expect(directLines).toEqual(routedLines);
    expect(await t.waitForCall(org, direct.body.callId)).toMatchObject({ status: 'ended', outcome: 'COMPLETED' });
  });

  it('answers every refusal after the token as the route does: body, replay, number busy, rate limit, disabled', async () => {
    const { apiToken, apiSecret } = await t.agentWithCredentials(org, {
      rateLimitPerMinute: 14,
      simulator: { delayMs: 5000 },
    });
    const send =
      (body: string | Record<string, unknown>, headers: Record<string, string> = {}) =>
      (path: string) =>
        t.clickToCall({ token: apiToken, secret: apiSecret, body, headers, path });
    const cases: [string, (path: string) => Promise<Answer>][] = [];
    cases.push(['not JSON', send('{"phone": ')]);
    cases.push(['no phone', send({ variables: {} })]);
    cases.push(['a premium-rate number', send({ phone: '+19005550123' })]);
    const busy = nextPhone();
    await send({ phone: busy })(DIRECT);
    cases.push(['a number with a call in progress', send({ phone: busy })]);
    for (const [what, request] of cases) {
      const [direct, routed] = await bothWays(request);
      expect(direct.status, what).toBeGreaterThanOrEqual(400);
      expect(shape(direct), what).toEqual(shape(routed));
      expect(await linesOf(direct), what).toEqual(await linesOf(routed));
    }

    // An Idempotency-Key's replay: the second request of each pair answers the first's call again.
    const replays: Answer[][] = [];
    for (const path of [DIRECT, THROUGH_FASTIFY]) {
      const key = `key-${path.length}-${Date.now()}`;
      const body = { phone: nextPhone() };
      const first = await send(body, { 'idempotency-key': key })(path);
      replays.push([first, await send(body, { 'idempotency-key': key })(path)]);
    }
    const [[first, replay], [routedFirst, routedReplay]] = replays as [[Answer, Answer], [Answer, Answer]];
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.callId).toBe(first.body.callId);
    expect(shape(replay)).toEqual(shape(routedReplay as Answer));
    expect(shape(first)).toEqual(shape(routedFirst as Answer));

    // Past the limit (14 a minute): 429 with Retry-After, both ways.
    let limited: [Answer, Answer] | undefined;
    for (let i = 0; i < 10 && !limited; i++) {
      const pair = await bothWays(send({ phone: nextPhone() }));
      if (pair[0].status === 429 && pair[1].status === 429) limited = pair;
    }
    expect(limited).toBeDefined();
    const [direct429, routed429] = limited as [Answer, Answer];
    expect(direct429.body.code).toBe('ctc:010');
    expect(direct429.headers.get('retry-after')).toMatch(/^\d+$/);
    expect({ ...shape(direct429), headers: [] }).toEqual({ ...shape(routed429), headers: [] });
    const names = (answer: Answer) => [...answer.headers.keys()].sort();
    expect(names(direct429)).toEqual(names(routed429));

    // The limit comes before the agent's switch in the checks' order: another agent, switched off.
    const off = await t.agentWithCredentials(org);
    await t.request('PATCH', `/v1/agents/${off.agent.id}`, { headers: org.auth, body: { enabled: false } });
    const disabled = await bothWays((path) =>
      t.clickToCall({ token: off.apiToken, secret: off.apiSecret, body: { phone: nextPhone() }, path }),
    );
    expect(disabled[0].body.code).toBe('ctc:004');
    expect(shape(disabled[0])).toEqual(shape(disabled[1]));
  });

  it('a wrong signature is refused as the route refuses it, and logged quietly', async () => {
    const { apiToken } = await t.agentWithCredentials(org);
    const [direct, routed] = await bothWays((path) =>
      t.clickToCall({ token: apiToken, secret: 'not the secret', body: { phone: nextPhone() }, path }),
    );
    expect(direct.status).toBe(403);
    expect(direct.body.code).toBe('ctc:006');
    expect(shape(direct)).toEqual(shape(routed));
    // No line of their own: one line every 10 s says how many there were (decision 0029).
    for (const answer of [direct, routed]) {
      expect((await linesOf(answer)).filter((line) => line.msg === 'request completed')).toEqual([]);
    }
  });

  it('leaves to the route what it must read itself: no or an unknown token, a chunked or empty body', async () => {
    const { apiToken, apiSecret } = await t.agentWithCredentials(org);
    const before = t.app.directClickToCalls();
    expect((await t.clickToCall({ token: '', secret: apiSecret, body: { phone: nextPhone() } })).body.code).toBe(
      'ctc:001',
    );
    expect((await t.clickToCall({ token: `ctc_${'A'.repeat(43)}`, body: { phone: nextPhone() } })).body.code).toBe(
      'ctc:003',
    );
    expect((await t.clickToCall({ token: apiToken, secret: apiSecret, body: '' })).body.code).toBe('ctc:009');
    // A body sent in chunks, of no declared length.
    const body = JSON.stringify({ phone: nextPhone() });
    const { createHmac } = await import('node:crypto');
    const chunked = await fetch(`${t.url}${DIRECT}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'api-key': apiToken,
        signature: createHmac('sha256', apiSecret).update(body).digest('hex'),
      },
      body: new Blob([body]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(200);
    expect(t.app.directClickToCalls()).toBe(before);
  });

  it('a forwarded request: answered directly, its client and host taken from the headers only as far as its proxies are trusted', async () => {
    // A client behind two proxies: 198.51.100.7 → 203.0.113.9 → the loopback (the test).
    const forwarded = {
      'x-forwarded-for': '198.51.100.7, 203.0.113.9',
      'x-forwarded-host': 'old.example.com, calls.example.com',
    };
    /** The request sent both ways to `app`: the same answer and the same log line, whose client and host are returned. */
    const loggedClient = async (app: TestApp) => {
      const owner = app === t ? org : await app.signup();
      const { apiToken, apiSecret } = await app.agentWithCredentials(owner);
      const [direct, routed] = await bothWays(
        (path) =>
          app.clickToCall({
            token: apiToken,
            secret: apiSecret,
            body: { phone: nextPhone() },
            path,
            headers: forwarded,
          }),
        app,
      );
      expect(direct.status).toBe(200);
      expect(shape(direct)).toEqual(shape(routed));
      expect(await linesOf(direct)).toEqual(await linesOf(routed));
      const [line] = await linesOf(direct);
      const { remoteAddress, host } = (line?.req ?? {}) as { remoteAddress: string; host: string };
      return { remoteAddress, host: host.replace(/:\d+$/, ':<port>') };
    };
    const itself = { remoteAddress: '127.0.0.1', host: '127.0.0.1:<port>' };

    // No proxy trusted (the default): the headers are ignored.
    expect(await loggedClient(t)).toEqual(itself);
    const trusting = async (proxies: string) => {
      const app = await startLoggedApp({ SWITCHBOARD_TRUSTED_PROXIES: proxies });
      try {
        return await loggedClient(app);
      } finally {
        await app.close();
      }
    };
    // The loopback trusted: the client is the address it forwarded for, the host the last one named.
    expect(await trusting('127.0.0.1')).toEqual({ remoteAddress: '203.0.113.9', host: 'calls.example.com' });
    // Both proxies trusted: X-Forwarded-For is walked back to the first address not trusted.
    expect(await trusting('127.0.0.1, 203.0.113.0/24')).toEqual({
      remoteAddress: '198.51.100.7',
      host: 'calls.example.com',
    });
    // A proxy trusted, but the request did not come from it: the headers are ignored.
    expect(await trusting('10.0.0.1')).toEqual(itself);
  });

  it('counts both ways in the same HTTP metrics', async () => {
    const metrics = await fetch(`${t.url}/metrics`).then((response) => response.text());
    const count = metrics
      .split('\n')
      .find(
        (line) =>
          line.startsWith('switchboard_http_request_duration_seconds_count') &&
          line.includes('route="/api/click-to-call"') &&
          line.includes('status_code="200"'),
      );
    // The successes above: 1 + 2 (first and replay) × 2 + those under the limit, the chunked one and the two forwarded.
    expect(Number(count?.split(' ').pop())).toBeGreaterThanOrEqual(1 + 4 + 3);
    expect(t.app.directClickToCalls()).toBeGreaterThan(0);
  });
});
