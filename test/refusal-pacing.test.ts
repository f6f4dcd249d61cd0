import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HTTP_LIMITS } from '../src/http-limits.js';
import { createRefusalPacer } from '../src/lib/refusal-pacer.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// Click-to-calls refused for their credentials are answered late (decision 0029), so that a flood
// of made-up tokens from clients that wait for each answer costs one request per connection per
// delay; and requests are logged one line each, the probes and the refused floods quietly.

const madeUpToken = () => `ctc_${'A'.repeat(43)}`;

describe('refusals of callers without credentials', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('answers no token, a made-up token and a wrong signature about a second late, and a valid request at once', async () => {
    expect(HTTP_LIMITS.refusalDelayMs).toBe(1000);
    t = await startTestApp({}, undefined, { httpLimits: { refusalDelayMs: HTTP_LIMITS.refusalDelayMs } });
    const org = await t.signup();
    const { apiToken, apiSecret } = await t.agentWithCredentials(org);

    const timed = async <T>(work: Promise<T>) => {
      const started = performance.now();
      const result = await work;
      return { result, ms: performance.now() - started };
    };
    const order: string[] = [];
    const refusals = [
      timed(t.clickToCall({ token: '', body: { phone: '+14155550101' } })),
      timed(t.clickToCall({ token: madeUpToken(), body: { phone: '+14155550102' } })),
      timed(t.clickToCall({ token: apiToken, secret: 'not the secret', body: { phone: '+14155550103' } })),
    ].map((p, i) =>
      p.then((r) => {
        order.push(`refusal ${i}`);
        return r;
      }),
    );
    // Sent after the refusals, answered before them.
    const valid = t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: '+14155550104' } });
    const accepted = await valid;
    order.push('valid');
    expect(accepted.status).toBe(200);
    const answered = await Promise.all(refusals);
    expect(order[0]).toBe('valid');
    expect(answered.map((a) => a.result.body.code)).toEqual(['ctc:001', 'ctc:003', 'ctc:006']);
    // Between half and one and a half times the delay, at random (timers may fire a millisecond early).
    for (const a of answered) expect(a.ms).toBeGreaterThanOrEqual(HTTP_LIMITS.refusalDelayMs / 2 - 2);
  });

  it('holds at most maxHeldRefusals and answers the rest at once; closing answers the held ones', async () => {
    t = await startTestApp({}, undefined, { httpLimits: { refusalDelayMs: 120_000, maxHeldRefusals: 2 } });
    const app = t;
    const order: number[] = [];
    const sent = [0, 1, 2].map((i) =>
      app.clickToCall({ token: madeUpToken(), body: {} }).then((r) => {
        order.push(i);
        return r;
      }),
    );
    // The third finds the two places taken: answered without waiting.
    const first = await Promise.race(sent);
    expect(first.body.code).toBe('ctc:003');
    expect(order).toHaveLength(1);
    // Closing sends the two held answers instead of waiting two minutes.
    const closing = app.close();
    t = undefined;
    const all = await Promise.all(sent);
    await closing;
    expect(all.map((r) => r.status)).toEqual([403, 403, 403]);
  });

  it('a caller that hangs up while its refusal waits costs nothing more', async () => {
    t = await startTestApp({}, undefined, { httpLimits: { refusalDelayMs: 200 } });
    const aborted = new AbortController();
    const gone = fetch(`${t.url}/api/click-to-call`, {
      method: 'POST',
      headers: { 'api-key': madeUpToken(), 'content-type': 'application/json' },
      body: '{}',
      signal: aborted.signal,
    }).catch((error: Error) => error.name);
    setTimeout(() => aborted.abort(), 50);
    expect(await gone).toBe('AbortError');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await t.request('GET', '/healthz')).status).toBe(200);
    const again = await t.clickToCall({ token: madeUpToken(), body: {} });
    expect(again.body.code).toBe('ctc:003');
  });
});

describe('the refusal pacer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds a thousand refusals on a few dozen timers, each answered once, none early, spread over the delay', () => {
    vi.useFakeTimers({ now: 0 });
    const pacer = createRefusalPacer({ delayMs: 1000, maxHeld: 10_000 });
    const answeredAt: number[] = [];
    for (let i = 0; i < 1000; i++) pacer.pace(() => answeredAt.push(Date.now()));
    expect(pacer.held).toBe(1000);
    // One timer per 20 ms slot of the 0.5–1.5 s spread, not one per refusal (decision 0059).
    expect(vi.getTimerCount()).toBeLessThanOrEqual(51);
    vi.advanceTimersByTime(499);
    expect(answeredAt).toEqual([]);
    vi.advanceTimersByTime(1021);
    expect(answeredAt).toHaveLength(1000);
    expect(pacer.held).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(Math.min(...answeredAt)).toBeGreaterThanOrEqual(500);
    expect(Math.max(...answeredAt)).toBeLessThanOrEqual(1520);
    expect(new Set(answeredAt).size).toBeGreaterThanOrEqual(40);
  });

  it('an answer that throws does not keep the others of its slot waiting', () => {
    vi.useFakeTimers({ now: 0 });
    const pacer = createRefusalPacer({ delayMs: 1000, maxHeld: 10_000 });
    const sent: number[] = [];
    // Paced in the same instant with no random spread between them: the same slot, at most 20 ms wide.
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    for (const i of [0, 1, 2]) {
      pacer.pace(() => {
        if (i === 1) throw new Error('the connection went away');
        sent.push(i);
      });
    }
    vi.mocked(Math.random).mockRestore();
    expect(vi.getTimerCount()).toBe(1);
    expect(() => vi.advanceTimersByTime(1100)).toThrow('the connection went away');
    expect(sent).toEqual([0, 2]);
    expect(pacer.held).toBe(0);
  });

  it('flush answers every held refusal at once and the later ones without waiting', () => {
    vi.useFakeTimers({ now: 0 });
    const pacer = createRefusalPacer({ delayMs: 1000, maxHeld: 10_000 });
    let answered = 0;
    for (let i = 0; i < 100; i++) pacer.pace(() => answered++);
    pacer.flush();
    expect(answered).toBe(100);
    expect(vi.getTimerCount()).toBe(0);
    pacer.pace(() => answered++);
    expect(answered).toBe(101);
  });
});

describe('request logs', () => {
  it('one line per request at info; probes at debug; a flood of refusals summed up in one line', async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    });
    const t = await startTestApp({}, undefined, { logger: { level: 'info', stream } });
    try {
      for (const path of ['/healthz', '/readyz', '/metrics']) expect((await t.request('GET', path)).status).toBe(200);
      expect((await t.request('GET', '/v1/me')).status).toBe(401);
      for (let i = 0; i < 30; i++) {
        expect((await t.clickToCall({ token: madeUpToken(), body: {} })).body.code).toBe('ctc:003');
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      const about = (text: string) => lines.filter((line) => JSON.stringify(line).includes(text));
      expect(about('incoming request')).toEqual([]);
      for (const path of ['/healthz', '/readyz', '/metrics']) expect(about(`"url":"${path}"`)).toEqual([]);
      expect(about('"url":"/v1/me"')).toEqual([
        expect.objectContaining({
          msg: 'request completed',
          level: 30,
          req: expect.objectContaining({ method: 'GET', url: '/v1/me' }),
          res: { statusCode: 401 },
        }),
      ]);
      expect(about('/api/click-to-call')).toEqual([]);
      expect(about('refused for its credentials')).toEqual([
        expect.objectContaining({ msg: 'click-to-call refused for its credentials (ctc:003)', level: 30 }),
      ]);
    } finally {
      await t.close();
    }
  });
});
